/* The proof of the ceiling on every streak (ceiling.py) in C. */
#include "accel.h"

/* longest(ranks, uncovers, fit, stock, mask, free, top, streak, length, max_nodes, seconds,
 *         max_entries, wraps) -> (found: True, False, or None out of budget; nodes)
 *
 * Whether some line from the position has a streak of ``length`` cards or more (the
 * streak going on counted whole): ceiling.py ``streak_reaches``, the same
 * search (it argues it) in the same order: the same states, nodes and answers. Each state
 * (mask, top, the streak's cards, the next stock index) searched is a node; ``max_entries``
 * (mask, top) at most are kept (past them: out of budget). */
typedef struct {
    u64 key; /* (mask << 4 | top + 1) + 1, 0 for an empty slot */
    int16_t len;
    int16_t idx;
} ReachSlot;

typedef struct {
    u64 mask;
    u64 free;
    int top, len, idx, drawn; /* drawn: just drawn to (it does not draw again) */
} Reach;

static ReachSlot *reach_slot(ReachSlot *t, size_t cap, u64 key) {
    size_t m = cap - 1;
    size_t i = home_of(key, cap);
    while (t[i].key != 0 && t[i].key != key) i = (i + 1) & m;
    return &t[i];
}

/* 1: a streak of ``length`` found, 0: none, -1: out of budget, -2: out of memory. */
static int streak_reaches(Search *s, u64 mask0, u64 free0, int top0, int streak0, int length,
                          size_t max_entries) {
    size_t cap = 1 << 12, count = 0, sp = 0, stack_cap = 1 << 10;
    ReachSlot *seen = calloc(cap, sizeof(ReachSlot));
    Reach *stack = malloc(stack_cap * sizeof(Reach));
    /* fan[i * 14 + k], k < nfan[i]: ceiling.py ``first_draws`` (the latest first) */
    int *fan = malloc(((size_t)s->nstock + 1) * 14 * sizeof(int));
    int *nfan = calloc((size_t)s->nstock + 1, sizeof(int));
    int rc = 0;
    if (seen == NULL || stack == NULL || fan == NULL || nfan == NULL) {
        rc = -2;
        goto out;
    }
    for (int i = 0; i < s->nstock; i++) {
        int ranks = 0, k = 0, firsts[14];
        for (int j = i; j < s->nstock; j++)
            if (!(ranks >> s->stock[j] & 1)) {
                ranks |= 1 << s->stock[j];
                firsts[k++] = j;
            }
        for (int m = 0; m < k; m++) fan[i * 14 + m] = firsts[k - 1 - m];
        nfan[i] = k;
    }
    stack[sp++] = (Reach){mask0, free0, top0, streak0, 0, 0};
    while (sp > 0) {
        Reach r = stack[--sp];
        if (r.len >= length) {
            rc = 1;
            break;
        }
        u64 key = (r.mask << 4 | (u64)(r.top + 1)) + 1;
        ReachSlot *e = reach_slot(seen, cap, key);
        if (e->key == key) {
            /* reached before with a streak as long, and with a stock index no later (the
             * same state or another): its plays were searched from the first, its draws
             * from the second or the state it was drawn to from (ceiling.py argues it) */
            if (e->len >= r.len && e->idx <= r.idx) continue;
            if (r.len > e->len) e->len = (int16_t)r.len;
            if (r.idx < e->idx) e->idx = (int16_t)r.idx;
        } else {
            if (count >= max_entries) {
                rc = -1;
                break;
            }
            if (4 * (count + 1) > 3 * cap) { /* grow at three quarters full */
                size_t cap2 = cap * 2;
                ReachSlot *t2 = calloc(cap2, sizeof(ReachSlot));
                if (t2 == NULL) {
                    rc = -2;
                    break;
                }
                for (size_t i = 0; i < cap; i++)
                    if (seen[i].key != 0) *reach_slot(t2, cap2, seen[i].key) = seen[i];
                free(seen);
                seen = t2;
                cap = cap2;
                e = reach_slot(seen, cap, key);
            }
            *e = (ReachSlot){key, (int16_t)r.len, (int16_t)r.idx};
            count++;
        }
        s->nodes++;
        if (s->nodes > s->max_nodes || ((s->nodes & 1023) == 0 && out_of_time(s))) {
            rc = -1;
            break;
        }
        int counts[14], first, anyway;
        rank_counts(s, r.mask, counts);
        streak_caps(s, counts, r.top, &first, &anyway);
        if (r.len + first < length && anyway < length) continue;
        if (sp + 78 > stack_cap) { /* 14 draws and at most 64 plays */
            Reach *st2 = realloc(stack, 2 * stack_cap * sizeof(Reach));
            if (st2 == NULL) {
                rc = -2;
                break;
            }
            stack = st2;
            stack_cap *= 2;
        }
        if (anyway >= length && !r.drawn)
            for (int k = 0; k < nfan[r.idx]; k++) {
                int j = fan[r.idx * 14 + k];
                stack[sp++] = (Reach){r.mask, r.free, s->stock[j], 0, j + 1, 1};
            }
        for (u64 playable = r.free & s->fit[r.top + 1]; playable; playable &= playable - 1) {
            int p = __builtin_ctzll(playable);
            u64 m2 = r.mask | (u64)1 << p, f2 = r.free & ~((u64)1 << p);
            for (int k = s->unc_off[p]; k < s->unc_off[p + 1]; k++)
                if ((s->unc_cover[k] & m2) == s->unc_cover[k]) f2 |= (u64)1 << s->unc_q[k];
            stack[sp++] = (Reach){m2, f2, s->rank[p], r.len + 1, r.idx, 0};
        }
    }
out:
    free(seen);
    free(stack);
    free(fan);
    free(nfan);
    return rc;
}

PyObject *longest(PyObject *self, PyObject *args) {
    PyObject *ranks_o, *unc_o, *fit_o, *stock_o;
    long long max_nodes, max_entries;
    unsigned long long mask0, free0;
    int top0, streak, length, wraps;
    double seconds;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOKKiiiLdLp", &ranks_o, &unc_o, &fit_o, &stock_o, &mask0,
                          &free0, &top0, &streak, &length, &max_nodes, &seconds, &max_entries,
                          &wraps))
        return NULL;
    Search s;
    memset(&s, 0, sizeof s);
    PyObject *result = NULL;
    if (load_tables(&s, ranks_o, unc_o, fit_o, stock_o) < 0) goto done;
    if (top0 < -1 || top0 > 13 || streak < 0 || streak > 32000) {
        PyErr_SetString(PyExc_ValueError, "top: -1 to 13, streak: 0 to 32000");
        goto done;
    }
    s.full = ((u64)1 << s.n) - 1; /* n <= 56 (load_tables) */
    s.wraps = wraps;
    s.max_nodes = max_nodes < 0 ? ((long long)1 << 62) : max_nodes;
    s.timed = seconds >= 0;
    s.deadline = now_seconds() + seconds;
    size_t entries = max_entries > 0 ? (size_t)max_entries : ((size_t)1 << 22);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = streak_reaches(&s, mask0, free0, top0, streak, length, entries);
    Py_END_ALLOW_THREADS
    if (rc == -2) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_BuildValue("(NL)", rc < 0 ? Py_NewRef(Py_None) : PyBool_FromLong(rc), s.nodes);
done:
    search_free(&s);
    return result;
}
