// Light and dark follow the system unless the user picked one in the settings.
export const THEMES = ['system', 'light', 'dark'];

export function applyTheme(root, theme) {
  if (theme === 'light' || theme === 'dark') root.dataset.theme = theme;
  else delete root.dataset.theme;
}
