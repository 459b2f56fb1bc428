// Replaying a finished game's moves onto its revealed deal, to show the table at any
// point of it (the analysis's "the move after which the win was lost"). Only a revealed
// deal is replayed: nothing here ever knows a card the player could not see.

/**
 * The table after the first `upto` moves of `moves` ("play 21", "draw", "redeal",
 * "undo", "concede"), dealt from `deal` on `layout` under `rules`:
 * {tableau: [{position, card, face_up, removed, free}], waste: [...], stock_count}.
 */
export function replay(deal, layout, rules, moves, upto) {
  const n = layout.positions.length;
  const firstStock = rules.free_start ? n : n + 1;
  let state = {
    tableau: deal.slice(0, n),
    waste: deal.slice(n, firstStock),
    stock: deal.slice(firstStock),
    previous: null,
  };
  for (const text of moves.slice(0, upto)) {
    const [verb, arg] = text.split(" ");
    if (verb === "undo") {
      state = state.previous ?? state;
    } else if (verb === "play") {
      const p = Number(arg);
      const tableau = state.tableau.slice();
      const card = tableau[p];
      tableau[p] = null;
      state = { tableau, waste: [...state.waste, card], stock: state.stock, previous: state };
    } else if (verb === "draw") {
      state = { tableau: state.tableau, waste: [...state.waste, state.stock[0]], stock: state.stock.slice(1), previous: state };
    } else if (verb === "redeal") {
      state = { tableau: state.tableau, waste: state.waste.slice(-1), stock: state.waste.slice(0, -1), previous: state };
    }
  }
  const tableau = layout.positions.map((pos) => {
    const removed = state.tableau[pos.index] == null;
    const free = pos.covered_by.every((c) => state.tableau[c] == null);
    return {
      position: pos.index,
      card: removed ? null : state.tableau[pos.index],
      face_up: !removed && (pos.face_up || rules.open_peaks || free),
      removed,
      free: !removed && free,
    };
  });
  return { tableau, waste: state.waste, stock_count: state.stock.length };
}
