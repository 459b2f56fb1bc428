// Taps while a move is on its way: every tap is kept, in order, and sent once the answer
// to the one before has come back (each judged against the table the server sent, not
// the one on screen when it was tapped). A tap's Idempotency-Key is made once, when it
// is tapped, and its If-Match once, when it is first sent: a retry after a network
// failure, a 429 or a 503 sends exactly the same request again, so the server applies it
// once however many times it is sent. A tap is never dropped silently: one that no
// longer fits is refused on the page, with its reason, like any other.

import { ApiError, newKey } from "./api.js";

const RETRY_STATUSES = new Set([0, 429, 503]);

export class MoveQueue {
  /**
   * `resolve(intent)` answers {send: () => Promise<state>} (given the key and version)
   * or {refuse: "reason"}; `onState(state, intent)` shows an answer; `onError(e, intent,
   * waiting)` is told of a failure (the queue is cleared on a refusal by the server);
   * `onChange()` is called whenever the queue or the in-flight move changes.
   */
  constructor({ resolve, onState, onRefuse, onError, onWait, onChange }) {
    Object.assign(this, { resolve, onState, onRefuse, onError, onWait, onChange });
    this.items = [];
    this.current = null; // the intent on its way
    this.timer = null;
    addEventListener("online", () => this.wake());
  }

  get busy() {
    return this.current !== null || this.items.length > 0;
  }

  /** Every intent not yet answered, the one on its way first. */
  get pending() {
    return this.current ? [this.current, ...this.items] : [...this.items];
  }

  push(intent) {
    intent.key = newKey();
    this.items.push(intent);
    this.onChange();
    this.pump();
  }

  clear() {
    const dropped = this.items.length;
    this.items = [];
    this.onChange();
    return dropped;
  }

  wake() {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
      this.pump();
    }
  }

  async pump() {
    if (this.current || this.timer) return;
    while (this.items.length) {
      const intent = this.items[0];
      if (!intent.sent) {
        const plan = this.resolve(intent);
        if (plan.refuse !== undefined) {
          this.items.shift();
          this.onRefuse(intent, plan.refuse);
          this.onChange();
          continue;
        }
        intent.sent = plan;
      }
      this.current = intent;
      this.items.shift();
      this.onChange();
      try {
        const state = await intent.sent.send(intent.key);
        intent.tries = 0;
        this.current = null;
        this.onState(state, intent);
      } catch (e) {
        this.current = null;
        if (e instanceof ApiError && RETRY_STATUSES.has(e.status)) {
          // The same request again later: same key, same If-Match.
          this.items.unshift(intent);
          intent.tries = (intent.tries ?? 0) + 1;
          const wait = e.retryAfter ? e.retryAfter * 1000 : Math.min(8000, 500 * 2 ** intent.tries);
          this.onWait(e, intent, wait);
          this.onChange();
          this.timer = setTimeout(() => {
            this.timer = null;
            this.pump();
          }, wait);
          return;
        }
        this.onError(e, intent);
      }
      this.onChange();
    }
  }
}
