/* The bounds of bounds.py in C, for the layered search (layers.c) and the ceiling's proof
 * (ceiling.c): the caps on a streak from the ranks left (``streak_caps``), the points the
 * cards left can still score (``cards_bound``) and with the peaks (``points_ahead``). Each
 * is argued in bounds.py's docstrings, and gives the Python function's numbers. */
#include "accel.h"

/* One rank further along ``rank_cover``'s programme, the rank weighing ``w``. */
static inline void cover_step(int *in, int *out, int w) {
    int in2 = (*in < *out ? *in : *out) + w; /* this rank in: the one before either way */
    *out = *in;                             /* this rank out: the one before in */
    *in = in2;
}

/* The least weight of a set of ranks holding one of every two neighbouring ranks, ``w[r - 1]``
 * for rank r (bounds.py ``rank_cover``): ``*in_set`` among the sets that hold the rank
 * ``v + 1``, ``*out_set`` among those that do not. Round the ring from v when a King and an
 * Ace are neighbours (the last rank before v is then in the set unless v is), else Ace to
 * King. */
static void rank_cover(const int *w, int wraps, int v, int *in_set, int *out_set) {
    /* two programmes side by side: a (v out of the set) and b (v in it), each the least
     * weight so far with the last rank in the set (in) or not (out) */
    const int never = 1 << 30;
    int a_in, a_out, b_in, b_out;
    if (wraps) {
        a_in = never, a_out = 0, b_in = w[v], b_out = never;
        for (int r = v == 12 ? 0 : v + 1; r != v; r = r == 12 ? 0 : r + 1) {
            cover_step(&a_in, &a_out, w[r]);
            cover_step(&b_in, &b_out, w[r]);
        }
        *out_set = a_in; /* v out: the last rank before it is in */
        *in_set = b_in < b_out ? b_in : b_out;
        return;
    }
    a_in = b_in = w[0];
    a_out = b_out = 0;
    for (int r = 0; r < 13; r++) {
        if (r > 0) {
            cover_step(&a_in, &a_out, w[r]);
            cover_step(&b_in, &b_out, w[r]);
        }
        if (r == v) {
            a_in = never;
            b_out = never;
        }
    }
    *out_set = a_in < a_out ? a_in : a_out;
    *in_set = b_in < b_out ? b_in : b_out;
}

/* The points of a first streak of ``l1`` cards continuing one of ``streak``, then
 * ``streaks`` of ``anyway`` cards and one of ``part`` (none past ``draws`` streaks), each
 * later one less the penalty of its draw, or left out where it scores less than that
 * (bounds.py ``cards_bound``). */
static inline long long split_points(Search *s, int streak, int l1, int anyway, int streaks,
                                     int part, int draws) {
    long long full = s->pts[anyway] - s->penalty, rest = s->pts[part] - s->penalty;
    if (full < 0) full = 0;
    if (rest < 0) rest = 0;
    long long later = streaks >= draws ? draws * full : streaks * full + rest;
    return s->pts[streak + l1] - s->pts[streak] + later;
}

/* How many cards of each rank (0: a joker) are left (``mask`` removed). */
void rank_counts(Search *s, u64 mask, int *counts) {
    u64 rest = s->full & ~mask;
    for (int r = 0; r <= 13; r++) counts[r] = popcount(s->rank_mask[r] & rest);
}

/* The most cards a streak can take from the cards left (``counts`` of each rank): from the
 * top ``top`` (``*first``) and from any top (``*anyway``): bounds.py ``streak_caps`` (it
 * argues it). */
void streak_caps(Search *s, const int *counts, int top, int *first, int *anyway) {
    int w[13], left = counts[0];
    for (int r = 1; r <= 13; r++) {
        w[r - 1] = 2 * counts[r];
        left += counts[r];
    }
    int in = 0, out = 0;
    rank_cover(w, s->wraps, top >= 1 ? top - 1 : 0, &in, &out);
    *anyway = 2 * counts[0] + (in < out ? in : out) + 1;
    if (*anyway > left) *anyway = left;
    *first = *anyway;
    if (top >= 1) { /* the top is a card of a rank in the set, or not */
        *first = 2 * counts[0] + (in + 1 < out ? in + 1 : out);
        if (*first > left) *first = left;
    }
}

/* The most points the cards left (``counts`` of each rank) can still score in streaks, from
 * the waste top ``top`` and a streak of ``streak``, with ``draws`` stock cards left, no
 * streak taking more than ``s->longest`` cards: bounds.py ``cards_bound`` (it argues it),
 * with the caps of ``streak_caps``. */
static long long cards_bound(Search *s, const int *counts, int top, int streak, int draws) {
    int left = 0, first, anyway, longest = s->longest;
    for (int r = 0; r <= 13; r++) left += counts[r];
    streak_caps(s, counts, top, &first, &anyway);
    if (anyway > longest) anyway = longest;
    if (first > longest - streak) first = longest - streak > 0 ? longest - streak : 0;
    /* The most over the first streak's length l1 <= first (bounds.py ``cards_bound``):
     * over each run of l1 where the later streaks' count stays q, at the run's ends. */
    if (anyway == 0) return 0; /* no card left */
    long long best = 0;
    for (int q = 0, hi = left;; q++, hi -= anyway) {
        int lo = hi - anyway + 1 > 0 ? hi - anyway + 1 : 0;
        if (lo <= first) {
            int end = hi < first ? hi : first;
            long long v = split_points(s, streak, end, anyway, q, left - end - q * anyway, draws);
            if (v > best) best = v;
            v = split_points(s, streak, lo, anyway, q, left - lo - q * anyway, draws);
            if (v > best) best = v;
        }
        if (lo == 0) break;
    }
    return best;
}

/* The bonus of every peak left (``mask`` removed). */

/* The most points still to come from a position (``mask`` removed, ``counts`` of each rank
 * left, ``cards_bound``'s other arguments): the cards' and every peak left's bonus (bounds.py
 * ``points_ahead``, ``score_bound`` argues it). */
long long points_ahead(Search *s, u64 mask, const int *counts, int top,
                                     int streak, int draws) {
    return cards_bound(s, counts, top, streak, draws) + peaks_left(s, mask);
}
