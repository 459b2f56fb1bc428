// Who the player follows (GET /v1/players/me/following, a page at a time), and following
// or unfollowing someone from a board (PUT and DELETE /v1/players/me/following/{id}).
// Following needs no approval: it only gathers results that are public already, so that a
// board can be read among=following, the player and their friends ranked among themselves.

export class Following {
  /** `keyOf()`: the player's key, or null before there is a player. */
  constructor(api, keyOf) {
    Object.assign(this, { api, keyOf });
    this.people = null; // [{player_id, name, kind, since}], latest first, once read
    this.reading = null;
  }

  /** Everyone the player follows (read once, then kept up to date here). */
  async list() {
    const key = this.keyOf();
    if (!key) return [];
    if (this.people) return this.people;
    if (!this.reading) {
      this.reading = (async () => {
        const people = [];
        let cursor = null;
        do {
          const page = await this.api.listFollowing(key, cursor);
          people.push(...page.following);
          cursor = page.next;
        } while (cursor);
        this.people = people;
        return people;
      })().finally(() => (this.reading = null));
    }
    return this.reading;
  }

  has(playerId) {
    return !!this.people?.some((p) => p.player_id === playerId);
  }

  async follow(playerId, name = null) {
    await this.api.follow(this.keyOf(), playerId);
    await this.list().catch(() => []);
    if (this.people && !this.has(playerId)) this.people.unshift({ player_id: playerId, name, kind: "human", since: new Date().toISOString() });
  }

  async unfollow(playerId) {
    await this.api.unfollow(this.keyOf(), playerId);
    if (this.people) this.people = this.people.filter((p) => p.player_id !== playerId);
  }

  /** Another player's key is in use (a key carried from another device): read again. */
  forget() {
    this.people = null;
  }
}
