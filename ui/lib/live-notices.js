// Which changes of a project's domains are told in a desktop notification ("Domain live",
// "Certificate failed"): each one once, whichever path brought it into the list.
//
// The watch used to compare the list before and after each of its polls. Every other path that
// changes the list in between (the refresh of the project that follows a poll's change, a
// status read by the details panel, the table's refresh) moved a domain to live without a
// notification, and the next poll's "before" already said live: that domain's notification
// never came. Here the last state told about is kept per domain, and every change of the list
// is compared with it.
import { notableChange } from './poll-schedule.js';

export class LiveNotices {
  constructor() {
    this.projectId = null;
    /** hostname → the domain as last observed, which the next change is compared with. */
    this.seen = new Map();
  }

  /**
   * Observes the project's list after any change and returns the changes to notify, each
   * `{change, domain}`. With `tell` false (the user is looking at the window and did it) the
   * changes are taken as seen and none is returned. A new project starts from what it shows.
   */
  observe(projectId, domains, { tell }) {
    const fresh = projectId !== this.projectId;
    if (fresh) {
      this.projectId = projectId;
      this.seen = new Map();
    }
    const notices = [];
    const present = new Set();
    for (const domain of domains) {
      present.add(domain.hostname);
      const change = fresh ? null : notableChange(this.seen.get(domain.hostname), domain);
      if (change && tell) notices.push({ change, domain });
      this.seen.set(domain.hostname, domain);
    }
    for (const hostname of [...this.seen.keys()]) if (!present.has(hostname)) this.seen.delete(hostname);
    return notices;
  }
}
