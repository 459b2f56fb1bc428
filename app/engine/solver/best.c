/* The exact best score of best.py (``BestSearch._value_fast``) in C: the same draw
 * positions in the same order, counting nodes alike, so the two give the same value, the
 * same line and the same node count (tests/engine/test_best_accel.py). best.py argues the
 * search (a draw ends the streak; a draw position where no card fits is followed to the
 * next where one does). */
#include "accel.h"

/* The best points still to come from a draw position (``keep``: kept in the table; the
 * position solved is not) into ``*out``. */
static int value_fast(Search *s, int keep, u64 mask0, u64 free0, int idx, int top0, int streak,
                      long long *out) {
    s->nodes++;
    if (s->nodes > s->max_nodes || ((s->nodes & 1023) == 0 && out_of_time(s))) {
        s->failed = 1;
        return -1;
    }
    size_t base = s->ends_len;
    if (walk(s, mask0, free0, top0) < 0) return -1;
    size_t stop = s->ends_len;
    /* Where each end goes on after a draw: the next draw position where a card can be
     * played (best.py), its slot in the table fetched while the others are looked at. */
    for (size_t i = base; i < stop; i++) {
        End *d = &s->ends[i];
        int j = d->mask == s->full ? s->nstock + 1 : next_draw(s, d->free, idx);
        if (j <= s->nstock) __builtin_prefetch(&s->tt[home_of(tt_key(d->mask, j), s->tt_cap)]);
        d->next = j;
    }
    int count0 = popcount(mask0);
    long long base_pts = s->pts[streak] + s->bonus[popcount(mask0 & s->peak_mask)];
    long long best = 0;
    for (size_t i = base; i < stop; i++) {
        u64 m2 = s->ends[i].mask;
        long long now = s->pts[streak + popcount(m2) - count0] +
                        s->bonus[popcount(m2 & s->peak_mask)] - base_pts;
        if (now > best) best = now;
        int j = s->ends[i].next;
        if (j > s->nstock) continue;
        u64 f2 = s->ends[i].free;
        long long v;
        Entry *e = tt_find(s, tt_key(m2, j));
        if (e != NULL) {
            v = e->best;
        } else if (value_fast(s, 1, m2, f2, j, s->stock[j - 1], 0, &v) < 0) {
            return -1;
        }
        long long c = now - s->penalty * (j - idx) + v;
        if (c > best) best = c;
    }
    s->ends_len = base;
    if (keep && tt_put(s, tt_key(mask0, idx), best) < 0) return -1;
    *out = best;
    return 0;
}

/* The choice the Python search makes at a draw position worth ``best``: the first end
 * (in the walk's order) whose stop, or else draw, is worth it; ``*next``: the index of the
 * next draw position, 0 to stop. */
static int choose(Search *s, u64 mask0, u64 free0, int idx, int top0, int streak,
                  long long best, u64 *end, int *next) {
    size_t base = s->ends_len;
    if (walk(s, mask0, free0, top0) < 0) return -1;
    int count0 = popcount(mask0);
    long long base_pts = s->pts[streak] + s->bonus[popcount(mask0 & s->peak_mask)];
    for (size_t i = base; i < s->ends_len; i++) {
        u64 m2 = s->ends[i].mask;
        long long now = s->pts[streak + popcount(m2) - count0] +
                        s->bonus[popcount(m2 & s->peak_mask)] - base_pts;
        if (now == best) {
            *end = m2;
            *next = 0;
            s->ends_len = base;
            return 0;
        }
        if (m2 == s->full) continue;
        u64 f2 = s->ends[i].free;
        int j = next_draw(s, f2, idx);
        if (j > s->nstock) continue;
        Entry *e = tt_find(s, tt_key(m2, j));
        if (e != NULL && now - s->penalty * (j - idx) + e->best == best) {
            *end = m2;
            *next = j;
            s->ends[base].free = f2; /* the next draw position's free cards */
            s->ends_len = base + 1;
            return 0;
        }
    }
    s->ends_len = base;
    PyErr_SetString(PyExc_AssertionError, "the best line cannot be found again");
    return -2;
}

/* What both best-score searches (``best``, ``layers``) are first given, into ``s``: the
 * tables, the scoring, the start's top and streak, the budget; -1 with a Python error set. */
int setup_best(Search *s, PyObject *ranks_o, PyObject *unc_o, PyObject *fit_o,
                      PyObject *stock_o, PyObject *pts_o, PyObject *bonus_o, long long penalty,
                      u64 peak_mask, u64 full, int top0, int streak, long long max_nodes,
                      double seconds) {
    if (load_tables(s, ranks_o, unc_o, fit_o, stock_o) < 0) return -1;
    if (top0 < -1 || top0 > 13 || streak < 0) {
        PyErr_SetString(PyExc_ValueError, "top: -1 to 13, streak: 0 or more");
        return -1;
    }
    if (ints_of(pts_o, &s->pts, &s->npts) < 0) return -1;
    if (ints_of(bonus_o, &s->bonus, &s->nbonus) < 0) return -1;
    if (s->npts < s->n + streak + 1 || s->nbonus < popcount(peak_mask) + 1) {
        PyErr_SetString(PyExc_ValueError, "pts, bonus: too short");
        return -1;
    }
    s->penalty = penalty;
    s->peak_mask = peak_mask;
    s->full = full;
    s->max_nodes = max_nodes < 0 ? ((long long)1 << 62) : max_nodes;
    s->timed = seconds >= 0;
    s->deadline = now_seconds() + seconds;
    s->longest = s->n + streak; /* no ceiling but the cards */
    return 0;
}

/* best(ranks, uncovers, fit, stock, pts, bonus, penalty, peak_mask, full,
 *      mask, free, top, streak, max_nodes, seconds, max_entries)
 *   -> (value or None, nodes, ends)
 *
 * ``ends``: the draw positions along the best line as (stock index, the mask its streak
 * ends on), the first the position solved (index 0); value None when the budget (nodes,
 * seconds, or ``max_entries`` entries of the table) ran out. At most 56 tableau positions
 * and 255 stock cards (a key is the mask << 8 | the stock index). */
PyObject *best(PyObject *self, PyObject *args) {
    PyObject *ranks_o, *unc_o, *fit_o, *stock_o, *pts_o, *bonus_o;
    long long penalty, max_nodes, max_entries;
    unsigned long long peak_mask, full, mask0, free0;
    int top0, streak;
    double seconds;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOLKKKKiiLdL", &ranks_o, &unc_o, &fit_o, &stock_o, &pts_o,
                          &bonus_o, &penalty, &peak_mask, &full, &mask0, &free0, &top0,
                          &streak, &max_nodes, &seconds, &max_entries))
        return NULL;
    Search s;
    memset(&s, 0, sizeof s);
    PyObject *result = NULL;
    if (setup_best(&s, ranks_o, unc_o, fit_o, stock_o, pts_o, bonus_o, penalty, peak_mask, full,
                   top0, streak, max_nodes, seconds) < 0)
        goto done;
    s.tt_max = max_entries > 0 ? (size_t)max_entries : ((size_t)1 << 22);
    if (alloc_work(&s) < 0) goto done;

    long long value = 0;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = value_fast(&s, 0, mask0, free0, 0, top0, streak, &value);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        result = Py_BuildValue("(OLN)", Py_None, s.nodes, PyList_New(0));
        goto done;
    }
    /* The line: the draw positions along it, each streak's end (the nodes counted once). */
    long long counted = s.nodes;
    PyObject *ends = PyList_New(0);
    if (ends == NULL) goto done;
    u64 mask = mask0, free_ = free0;
    int top = top0, idx = 0, next = 1;
    long long left = value;
    s.max_nodes = (long long)1 << 62;
    s.timed = 0;
    while (next) {
        u64 end;
        int str = idx == 0 ? streak : 0;
        rc = choose(&s, mask, free_, idx, top, str, left, &end, &next);
        if (rc < 0) {
            if (rc == -1) PyErr_NoMemory();
            Py_DECREF(ends);
            goto done;
        }
        PyObject *pair = Py_BuildValue("(iK)", idx, (unsigned long long)end);
        if (pair == NULL || PyList_Append(ends, pair) < 0) {
            Py_XDECREF(pair);
            Py_DECREF(ends);
            goto done;
        }
        Py_DECREF(pair);
        if (next) {
            long long base_pts = s.pts[str] + s.bonus[popcount(mask & s.peak_mask)];
            long long now = s.pts[str + popcount(end) - popcount(mask)] +
                            s.bonus[popcount(end & s.peak_mask)] - base_pts;
            left -= now - s.penalty * (next - idx);
            free_ = s.ends[s.ends_len - 1].free;
            s.ends_len--;
            top = s.stock[next - 1];
            mask = end;
            idx = next;
        }
    }
    result = Py_BuildValue("(LLN)", value, counted, ends);
done:
    search_free(&s);
    return result;
}
