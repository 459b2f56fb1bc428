// Cards as the API writes them: "7h", "Td", "As", "JK" (a joker).

export const RANKS = "A23456789TJQK";
export const SUITS = "cdhs";
const SUIT_SYMBOL = { c: "♣", d: "♦", h: "♥", s: "♠" };
const SUIT_NAME = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
const RANK_LABEL = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };
const RANK_NAME = { A: "Ace", T: "10", J: "Jack", Q: "Queen", K: "King" };
export const JOKER = "JK";
const KING = 13;

/** {code, rank (1-13, 0 for a joker), suit, label, symbol, red, name} */
export function card(code) {
  if (code === JOKER) {
    return { code, rank: 0, suit: "", label: "★", symbol: "", red: false, name: "Joker" };
  }
  const r = code[0];
  const s = code[1];
  return {
    code,
    rank: RANKS.indexOf(r) + 1,
    suit: s,
    label: RANK_LABEL[r] ?? r,
    symbol: SUIT_SYMBOL[s],
    red: s === "h" || s === "d",
    name: `${RANK_NAME[r] ?? r} of ${SUIT_NAME[s]}`,
  };
}

/** "7♥", "10♣", "Joker": how a message names a card. */
export function pretty(code) {
  const c = card(code);
  return c.rank === 0 ? "Joker" : `${c.label}${c.symbol}`;
}

/** Read one card code the way the server does ("10h", "TH", "th", "jk"); null if unknown. */
export function normalizeCode(text) {
  let key = String(text).trim().toLowerCase();
  if (key === "jk" || key === "joker") return JOKER;
  if (key.startsWith("10") && key.length === 3) key = "t" + key[2];
  if (key.length !== 2) return null;
  const rank = key[0].toUpperCase();
  const suit = key[1];
  if (!RANKS.includes(rank) || !SUITS.includes(suit)) return null;
  return rank + suit;
}

/** Split a deal typed or pasted by a player: white space or commas between codes. */
export function parseDealText(text) {
  const codes = [];
  const bad = [];
  for (const token of String(text).split(/[\s,]+/).filter(Boolean)) {
    const code = normalizeCode(token);
    if (code) codes.push(code);
    else bad.push(token);
  }
  return { codes, bad };
}

/** The same test as the engine's fits(): may `code` go on the waste top `top`? */
export function fits(code, top, rules) {
  if (top == null) return true;
  const a = card(code);
  const b = card(top);
  if (rules.king_stops && b.rank === KING) return false;
  if (a.rank === 0 || b.rank === 0) return true;
  const d = Math.abs(a.rank - b.rank);
  return d === 1 || (rules.wrap && d === KING - 1);
}

/**
 * Why the card at `position` cannot be played now, in a few words; null when it can
 * (or when the page cannot tell: it then posts the move and shows the server's answer).
 */
export function whyNot(game, layout, position) {
  const slot = game.tableau[position];
  if (!slot || slot.removed) return null;
  if (game.status !== "in_progress") return "the game is over";
  const playable = game.legal_moves.some((m) => m.kind === "play" && m.position === position);
  if (playable) return null;
  if (!slot.face_up) return "that card is face down";
  if (!slot.free) {
    const over = layout.positions[position].covered_by.filter((p) => !game.tableau[p].removed);
    const what = pretty(slot.card);
    return over.length === 1 ? `${what} is covered by a card` : `${what} is covered by ${over.length} cards`;
  }
  const top = game.waste_top;
  if (top && game.rules.king_stops && card(top).rank === KING) {
    return `nothing goes on a King (${pretty(top)}): draw`;
  }
  if (top && !fits(slot.card, top, game.rules)) {
    const a = card(slot.card).rank;
    const b = card(top).rank;
    const wrapNote = !game.rules.wrap && Math.abs(a - b) === KING - 1 ? " (no wrap: A and K are not neighbours)" : "";
    return `${pretty(slot.card)} does not go on ${pretty(top)}${wrapNote}`;
  }
  return null;
}

/** The ordered deck of docs/deals.md: per deck, suits c d h s each A..K; then jokers. */
export function orderedDeck(decks, jokers) {
  const out = [];
  for (let d = 0; d < decks; d++) {
    for (const s of SUITS) for (const r of RANKS) out.push(r + s);
  }
  for (let j = 0; j < jokers; j++) out.push(JOKER);
  return out;
}

const MASK = (1n << 64n) - 1n;

/** Deal number `n` by `splitmix64-fisher-yates-v1` (docs/deals.md), to check a reveal. */
export function numberedDeal(n, decks, jokers) {
  const a = orderedDeck(decks, jokers);
  let state = BigInt(n);
  const next = () => {
    state = (state + 0x9e3779b97f4a7c15n) & MASK;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    return z ^ (z >> 31n);
  };
  const span = 1n << 64n;
  for (let i = a.length - 1; i >= 1; i--) {
    const m = BigInt(i + 1);
    const limit = span - (span % m);
    let x = next();
    while (x >= limit) x = next();
    const j = Number(x % m);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}
