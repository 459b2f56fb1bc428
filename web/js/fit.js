// Sizing a table by the space it has, both ways, for any layout get_layout returns.
//
// A layout gives each position an x (half-card widths) and a row (half a card height
// down). A card is 2 half-widths wide and 2.8 tall, so a table of width W and R rows is
// W by 1.4 (R + 1) half-widths. Where the layout has an empty vertical gap that no card
// crosses (six peaks: two tables side by side), its parts are *bands* that may be
// stacked: on a phone held upright, two tables one above the other give cards twice as
// wide as side by side. Nothing here knows a layout by name.

const CARD_H = 2.8; // a card's height in half-widths
const ROW_STEP = 1.4; // a row is half a card lower
const BAND_GAP = 1; // half-widths between stacked bands
const COMFORT = 44; // px: a card at least this wide needs no stacking

/** The layout's bands: groups of positions split where an empty gap of a half-width or
 * more runs through every row, and no covering crosses it. */
export function bands(layout) {
  const byX = [...layout.positions].sort((a, b) => a.x - b.x);
  const groups = [];
  let current = [];
  let right = -Infinity;
  for (const p of byX) {
    if (current.length && p.x >= right + 1) {
      groups.push(current);
      current = [];
    }
    current.push(p);
    right = Math.max(right, p.x + 2);
  }
  if (current.length) groups.push(current);
  // A covering between two groups would make them one (not in any layout served today).
  const groupOf = new Map();
  groups.forEach((g, i) => g.forEach((p) => groupOf.set(p.index, i)));
  for (const p of layout.positions) {
    for (const c of p.covered_by) {
      if (groupOf.get(c) !== groupOf.get(p.index)) return [band(layout.positions)];
    }
  }
  return groups.map(band);
}

function band(positions) {
  const minX = Math.min(...positions.map((p) => p.x));
  const maxX = Math.max(...positions.map((p) => p.x)) + 2;
  const minRow = Math.min(...positions.map((p) => p.row));
  const maxRow = Math.max(...positions.map((p) => p.row));
  return {
    positions,
    minX,
    minRow,
    width: maxX - minX,
    height: (maxRow - minRow) * ROW_STEP + CARD_H,
  };
}

/** Every way of putting the bands on lines in their order: 1 line, 2 lines, ... */
function arrangements(parts) {
  const out = [];
  for (let lines = 1; lines <= parts.length; lines++) {
    const per = Math.ceil(parts.length / lines);
    const rows = [];
    for (let i = 0; i < parts.length; i += per) rows.push(parts.slice(i, i + per));
    out.push(rows);
  }
  return out;
}

/**
 * Where each position goes and how big a half-width is, for a space of `width` by
 * `height` pixels: {u, tw, th, place: Map(index -> {x, y}), lines, step}. `minU`, when
 * given, is a floor (a zoom): the table may then be larger than the space, and scrolls.
 * `maxStep` (half-widths, at least ROW_STEP) lets the rows spread apart where the cards'
 * size is bound by the width and height is left over (a phone held upright): more of
 * each covered card shows, and the table takes the screen instead of a strip of it.
 */
export function fit(layout, width, height, { maxU = 48, minU = 0, maxStep = ROW_STEP } = {}) {
  const parts = bands(layout);
  // The layout as it is drawn when its cards are comfortably big there; else the
  // arrangement that gives the biggest cards.
  let best = null;
  for (const rows of arrangements(parts)) {
    const tw = Math.max(...rows.map((r) => r.reduce((s, b) => s + b.width, 0) + BAND_GAP * (r.length - 1)));
    const th = rows.reduce((s, r) => s + Math.max(...r.map((b) => b.height)), 0) + BAND_GAP * (rows.length - 1);
    const u = Math.min(width / tw, height / th, maxU);
    if (best && 2 * best.u >= COMFORT) break;
    if (!best || u > best.u) best = { rows, tw, th, u };
  }
  // The rows' step: a table's height is linear in it (each line as tall as its tallest
  // band: its rows' span times the step, plus a card), so the step that fills the height
  // at this size is solved for directly, between ROW_STEP and maxStep.
  const spans = best.rows.map((r) => Math.max(...r.map((b) => (b.height - CARD_H) / ROW_STEP)));
  const span = spans.reduce((s, n) => s + n, 0);
  const fixed = best.th - span * ROW_STEP;
  const step = span > 0 ? Math.min(maxStep, Math.max(ROW_STEP, (height / best.u - fixed) / span)) : ROW_STEP;
  const place = new Map();
  let y = 0;
  best.rows.forEach((row, line) => {
    const rowWidth = row.reduce((s, b) => s + b.width, 0) + BAND_GAP * (row.length - 1);
    let x = (best.tw - rowWidth) / 2;
    for (const b of row) {
      for (const p of b.positions) place.set(p.index, { x: x + p.x - b.minX, y: y + (p.row - b.minRow) * step });
      x += b.width + BAND_GAP;
    }
    y += spans[line] * step + CARD_H + BAND_GAP;
  });
  const u = Math.max(Math.floor(best.u * 100) / 100, minU);
  return { u, tw: best.tw, th: fixed + span * step, place, lines: best.rows.length, step };
}
