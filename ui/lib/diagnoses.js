// Where Diagnose's reports go once they come back: the app state keeps each name's last
// findings (`diagnoses`), so the row and the details can say what Diagnose already found
// (a CAA record that forbids the CA) instead of contradicting it. This module has no imports:
// the command wrappers (api.js) hand reports here, and the store (app-state.js), which
// imports api.js, takes them from here.

let sink = null;

/** Makes `fn(report)` the receiver of every report from now on. */
export function keepDiagnosesIn(fn) {
  sink = fn;
}

/** Hands a doctor report (`{generated_at, hosts}`) to the receiver, when there is one. */
export function noteReport(report) {
  if (sink && Array.isArray(report?.hosts)) sink(report);
}
