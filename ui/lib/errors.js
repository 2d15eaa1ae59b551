// Errors from the Rust side arrive as {kind, message}. This turns them into what the user
// should read: the message, and what to do about it.

const ACTIONS = {
  plan_upgrade_required: 'Custom domains need the Pro plan or above. Upgrade the account, or switch to an account on a paid plan.',
  deploy_required: 'Deploy the project successfully once; domains can be added after that.',
  rate_limited: 'The request waits in the queue and is sent when the limit resets.',
  key_banned: 'The API key is banned for a while after repeated requests while limited. Wait for the ban to end.',
  unauthorized: 'Copy the key again from the platform’s dashboard, or connect with a new one.',
  domain_taken: 'Another project of this account already uses this name: remove it there first, or use it from that project.',
  domain_already_attached: 'This project already has the name; look for it in the table.',
  domain_limit_reached: 'The project has as many domains as its plan allows. Remove one, or upgrade the plan.',
  invalid_hostname: 'Correct the name and try again.',
  invalid_redirect: 'Choose a target on this project that is not itself a redirect.',
  timeout: 'The platform is slow to answer. Try again in a moment.',
  network: 'Check the internet connection and the platform’s address, then try again.',
  // These three say what was found and the next step in their own message (the client's).
  no_such_host: '',
  connection_refused: '',
  untrusted_certificate: '',
  doctor: 'Try again; if it keeps failing, Save diagnostics… for support.',
  io: 'Check that the folder exists and can be written, then try again.',
  browser_not_opened: 'Copy the link and open it in a browser yourself, or try again.',
  keyring: 'The system keyring is not available. Unlock it (or start a keyring service) and try again.',
  not_signed_in: 'Start the offline demo or connect to a platform first.',
  not_found: 'It may have been removed elsewhere; the list has been refreshed.',
  no_backend: 'Start Domain Desk from its application icon.',
};

/**
 * Kinds whose message is technical (a transport's error chain, a decoder's complaint): the
 * window says what failed in the user's words instead; the details are in the log file.
 */
const PLAIN = {
  network: 'The platform could not be reached.',
  // The platform's own sentence for a refused key is written for API clients ("Send a valid
  // API key as `Authorization: Bearer <key>`"): what it means for the user instead.
  unauthorized: 'The platform refused the API key.',
  decode: 'The platform’s answer could not be read.',
  response_too_large: 'The platform’s answer was too large to read.',
  internal: 'Something went wrong in Domain Desk.',
  queue_closed: 'Domain Desk is shutting down; the request was not sent.',
  setup: 'Domain Desk could not prepare the connection to the platform.',
  doctor: 'The DNS check could not run.',
  // The system's own sentence ("Permission denied") helps; its error number does not.
  io: (m) => `A file could not be read or written: ${String(m ?? '').replace(/^file system: /, '').replace(/\s*\(os error \d+\)/, '')}.`.replace(/\.\.$/, '.'),
  browser_not_opened: 'The browser could not be opened.',
};

/** {message, action} for an error of any shape. */
export function describeError(err) {
  if (err == null) return { kind: 'unknown', message: 'Something went wrong.', action: '' };
  if (typeof err === 'string') return { kind: 'unknown', message: err, action: '' };
  // The platform's own code (when it sent one) is more precise than the kind of failure.
  const kind = err.code ?? err.kind ?? 'unknown';
  const plain = PLAIN[kind];
  const message = typeof plain === 'function' ? plain(err.message) : plain ?? err.message ?? String(err);
  // A name another account holds comes with its challenge: proving control moves it, so no
  // advice to remove it anywhere is added (the window shows the challenge instead).
  if (err.ownership_challenge) return { kind, message, action: '' };
  return { kind, message, action: ACTIONS[kind] ?? '' };
}

/** One line: the message and, when there is one, what to do. */
export function errorText(err) {
  const { message, action } = describeError(err);
  return action ? `${message} ${action}` : message;
}
