/* The streaks both best-score searches walk (streaks.py): ``walk``, every mask a streak can
 * reach from a draw position, which best.c and layers.c expand; and ``streak``, the cards
 * of one streak found again for a line. */
#include "accel.h"

/* One walk's sets, cleared by a new generation. */
static int seen_grow(Search *s) {
    size_t cap = s->seen_cap * 2;
    SeenSlot *t = calloc(cap, sizeof(SeenSlot));
    if (t == NULL) return -1;
    for (size_t i = 0; i < s->seen_cap; i++) {
        SeenSlot *o = &s->seen[i];
        if (o->gen != s->gen) continue;
        size_t j = home_of(o->mask, cap);
        while (t[j].gen == s->gen) j = (j + 1) & (cap - 1);
        t[j] = *o;
    }
    free(s->seen);
    s->seen = t;
    s->seen_cap = cap;
    return 0;
}

/* Mark (mask, top) seen, looking from the slot
 * ``j`` on (``home_of``; ``seen_room`` has made room): 2 if the mask is new
 * (a new end), 1 if only the top is new, 0 if both were seen, -1 out of memory. One table
 * keyed on the mask, its tops a bit set: one probe a step, where a set of (mask, top) and one
 * of the masks took two (what they cost: docs/research/best-score.md, step 5). */
static inline int seen_probe(Search *s, u64 mask, int top, size_t j) {
    size_t m = s->seen_cap - 1;
    uint16_t bit = (uint16_t)(1u << top);
    for (;;) {
        SeenSlot *o = &s->seen[j];
        if (o->gen != s->gen) {
            o->gen = s->gen;
            o->mask = mask;
            o->tops = bit;
            s->seen_masks++;
            s->seen_count++;
            return 2;
        }
        if (o->mask == mask) {
            if (o->tops & bit) return 0;
            o->tops |= bit;
            s->seen_count++;
            return 1;
        }
        j = (j + 1) & m;
    }
}

/* Room in the table for ``more`` masks; -1 out of memory. */
static inline int seen_room(Search *s, size_t more) {
    while ((s->seen_masks + more) * 2 > s->seen_cap)
        if (seen_grow(s) < 0) return -1;
    return 0;
}

static int seen_add(Search *s, u64 mask, int top) {
    if (seen_room(s, 1) < 0) return -1;
    return seen_probe(s, mask, top, home_of(mask, s->seen_cap));
}

static void new_walk(Search *s) {
    s->gen++;
    if (s->gen == 0) { /* wrapped: clear the stamps */
        memset(s->seen, 0, s->seen_cap * sizeof(SeenSlot));
        s->gen = 1;
    }
    s->seen_count = 0;
    s->seen_masks = 0;
}

static int push_walk(Search *s, u64 mask, u64 free_, int top) {
    if (s->walk_len == s->walk_cap) {
        size_t cap = s->walk_cap * 2;
        Step *w = realloc(s->walk, cap * sizeof(Step));
        if (w == NULL) return -1;
        s->walk = w;
        s->walk_cap = cap;
    }
    s->walk[s->walk_len].mask = mask;
    s->walk[s->walk_len].free = free_;
    s->walk[s->walk_len].top = top;
    s->walk_len++;
    return 0;
}

static int push_end(Search *s, u64 mask, u64 free_) {
    if (s->ends_len == s->ends_cap) {
        size_t cap = s->ends_cap * 2;
        End *e = realloc(s->ends, cap * sizeof(End));
        if (e == NULL) return -1;
        s->ends = e;
        s->ends_cap = cap;
    }
    s->ends[s->ends_len].mask = mask;
    s->ends[s->ends_len].free = free_;
    s->ends[s->ends_len].next = 0;
    s->ends_len++;
    return 0;
}

/* Every mask a streak can reach from (mask0, top0), pushed on ``ends`` in the order the
 * Python walk (streaks.py ``Streaks.ends``) finds them (mask0 first); the walk is
 * deduplicated on (mask, top). Cut short past ``walk_limit`` steps, it says so
 * (``walk_cut``) and leaves on ``walk`` the states it had still to go on from. */
int walk(Search *s, u64 mask0, u64 free0, int top0) {
    new_walk(s);
    if (push_end(s, mask0, free0) < 0) goto oom; /* never reached again: masks only grow */
    s->walk_len = 0;
    if (push_walk(s, mask0, free0, top0) < 0) goto oom;
    while (s->walk_len) {
        Step st = s->walk[--s->walk_len];
        u64 playable = st.free & s->fit[st.top + 1];
        /* the children's slots are fetched first, so that their cache misses overlap */
        size_t home[64];
        int kids = 0;
        if (seen_room(s, (size_t)popcount(playable)) < 0) goto oom;
        for (u64 rest = playable; rest; rest &= rest - 1) {
            home[kids] = home_of(st.mask | (rest & (~rest + 1)), s->seen_cap);
            __builtin_prefetch(&s->seen[home[kids++]]);
        }
        kids = 0;
        while (playable) {
            u64 b = playable & (~playable + 1);
            playable ^= b;
            u64 m2 = st.mask | b;
            int p = __builtin_ctzll(b);
            int r = s->rank[p];
            int added = seen_probe(s, m2, r, home[kids++]);
            if (!added) continue;
            if (s->walk_limit && (long long)s->seen_count > s->walk_limit) {
                /* cut short: every end not reached is reached from a state still on the
                 * stack, or from this one (its other cards), left there for the caller */
                s->walk[s->walk_len++] = st;
                s->walk_cut = 1;
                goto walked;
            }
            if ((s->seen_count & 4095) == 0 &&
                (s->nodes + (long long)s->seen_count > s->max_nodes || out_of_time(s))) {
                s->failed = 1;
                return -1;
            }
            u64 f2 = st.free & ~b;
            for (int k = s->unc_off[p]; k < s->unc_off[p + 1]; k++) {
                u64 cq = s->unc_cover[k];
                if ((cq & m2) == cq) f2 |= (u64)1 << s->unc_q[k];
            }
            if (added == 2 && push_end(s, m2, f2) < 0) goto oom;
            if (push_walk(s, m2, f2, r) < 0) goto oom;
        }
    }
walked:
    s->nodes += (long long)s->seen_count;
    return 0;
oom:
    s->failed = 2;
    return -1;
}

/* streak(ranks, uncovers, fit, mask, free, top, end) -> the positions played, in order
 *
 * The cards of a streak from (mask, top) that ends on the mask ``end``: streaks.py,
 * ``Streaks.cards_to``, the same walk (deduplicated on (mask, top), only masks inside
 * ``end``), each step kept with the one it came from, in the same order: the same
 * cards. */
typedef struct {
    u64 mask;
    u64 free;
    int top;
    int card;
    long long parent;
} Trail;

PyObject *streak(PyObject *self, PyObject *args) {
    PyObject *ranks_o, *unc_o, *fit_o;
    unsigned long long mask0, free0, end;
    int top0;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOKKiK", &ranks_o, &unc_o, &fit_o, &mask0, &free0, &top0,
                          &end))
        return NULL;
    Search s;
    memset(&s, 0, sizeof s);
    PyObject *result = NULL;
    Trail *trail = NULL;
    long long *stack = NULL;
    PyObject *no_stock = PyTuple_New(0); /* a streak draws nothing */
    if (no_stock == NULL) return NULL;
    int loaded = load_tables(&s, ranks_o, unc_o, fit_o, no_stock);
    Py_DECREF(no_stock);
    if (loaded < 0) goto done;
    if (top0 < -1 || top0 > 13 || (mask0 & ~end) != 0) {
        PyErr_SetString(PyExc_ValueError, "top: -1 to 13, the end holding the start");
        goto done;
    }
    s.seen_cap = 1 << 8;
    s.seen = calloc(s.seen_cap, sizeof(SeenSlot));
    size_t cap = 1 << 10, len = 0, depth = 0;
    trail = malloc(cap * sizeof(Trail));
    stack = malloc(cap * sizeof(long long));
    if (s.seen == NULL || trail == NULL || stack == NULL) goto oom;
    new_walk(&s);
    long long found = -1;
    trail[0] = (Trail){mask0, free0, top0, -1, -1};
    len = 1;
    if (mask0 == end) found = 0;
    stack[depth++] = 0;
    while (depth && found < 0) {
        long long at = stack[--depth];
        Trail st = trail[at];
        u64 playable = st.free & s.fit[st.top + 1];
        while (playable) {
            u64 b = playable & (~playable + 1);
            playable ^= b;
            u64 m2 = st.mask | b;
            if (m2 & ~end) continue;
            int p = __builtin_ctzll(b);
            int r = s.rank[p];
            int added = seen_add(&s, m2, r);
            if (added < 0) goto oom;
            if (!added) continue;
            u64 f2 = st.free & ~b;
            for (int k = s.unc_off[p]; k < s.unc_off[p + 1]; k++) {
                u64 cq = s.unc_cover[k];
                if ((cq & m2) == cq) f2 |= (u64)1 << s.unc_q[k];
            }
            if (len == cap) {
                cap *= 2;
                Trail *t2 = realloc(trail, cap * sizeof(Trail));
                if (t2 == NULL) goto oom;
                trail = t2;
                long long *s2 = realloc(stack, cap * sizeof(long long));
                if (s2 == NULL) goto oom;
                stack = s2;
            }
            trail[len] = (Trail){m2, f2, r, p, at};
            if (m2 == end) {
                found = (long long)len++;
                break;
            }
            stack[depth++] = (long long)len++;
        }
    }
    if (found < 0) {
        PyErr_SetString(PyExc_ValueError, "no streak reaches that end");
        goto done;
    }
    {
        long long count = 0;
        for (long long at = found; trail[at].parent >= 0; at = trail[at].parent) count++;
        result = PyList_New((Py_ssize_t)count);
        if (result == NULL) goto done;
        for (long long at = found; trail[at].parent >= 0; at = trail[at].parent) {
            PyObject *card = PyLong_FromLong(trail[at].card);
            if (card == NULL) {
                Py_CLEAR(result);
                goto done;
            }
            PyList_SET_ITEM(result, (Py_ssize_t)--count, card);
        }
    }
    goto done;
oom:
    PyErr_NoMemory();
done:
    free(trail);
    free(stack);
    search_free(&s);
    return result;
}
