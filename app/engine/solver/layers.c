/* The layered search of layers.py (``LayerSearch``, the answer of an analysis) in C.
 *
 * layers(ranks, uncovers, fit, stock, pts, bonus, penalty, peak_mask, full,
 *        mask, free, top, streak, max_nodes, seconds, max_entries, walk_limit, share,
 *        ceiling, room, wraps, longest)
 *   -> (points, bound, complete, nodes, ends)
 *
 * The layered search of the draw positions of best.c: the most points of the lines found,
 * a sound bound on any line's, whether the search finished (the points are then the best,
 * and the bound equal to them), and the best line's draw positions as ``best`` gives them.
 * Layer by layer for ``share`` of the budget, then by bound. ``max_entries`` draw
 * positions at most are kept (past them a new one counts by its bound alone), a streak's
 * walk stops after ``walk_limit`` steps (0: never), no streak of any line takes more than
 * ``longest`` cards (the bound's cap). Its answers are the Python search's when it finishes
 * (tests/engine/test_best_accel.py); its order of expansion within a layer and among equal
 * bounds is its tables', so lines of equal points may differ. layers.py argues why the
 * pruning and the bound are sound. */
#include "accel.h"

/* A draw position of the layered search, in the table of its stock index: its mask (the
 * key: mask + 1; 0 for an empty slot), its free cards, the most points a line found reaches
 * it with, the draw position that line's last streak was played from (``plevel``,
 * ``pmask``), and the most points still to come from it (``ahead_of``: its bound is
 * ``acc + ahead``, worked out once, when the slot is made). */
typedef struct {
    u64 key;
    u64 free;
    u64 pmask;
    long long acc;
    int16_t plevel;
    int16_t done; /* L_DONE: expanded, or proved unable to beat the best line found;
                   * L_EXPANDED: it has children */
    int32_t ahead;
} LSlot;

#define L_DONE 1
#define L_EXPANDED 2

typedef struct {
    LSlot *slot;
    size_t cap, count;
} Layer;

typedef struct {
    long long bound;
    u64 mask;
    int level;
} Pending;

typedef struct {
    Layer *layer; /* per stock index, 0 to nstock */
    size_t entries, max_entries;
    int start_streak, start_top;
    long long best;                 /* the most points of the lines found */
    int best_level;                 /* its last streak: from (level, mask) to best_end; -1: none */
    u64 best_from, best_end;
    long long cut_bound;            /* the most a draw position whose walk was cut can lead to */
    int cut;
    long long expanded;
    double switch_at;               /* when to take the positions by bound (0: never) */
    long long switch_nodes;
    int by_bound;
    int full;                       /* the table is full: new positions are dropped */
    int evicting;                   /* evicting still frees room (layers_evict) */
    size_t room;                    /* crowded: fewer free entries than this */
    long long dropped;              /* the most a dropped or evicted position could lead to */
    long long ceiling;              /* the most any line from the start can reach: a line
                                     * that reaches it ends the search */
    Pending *pending;               /* the positions to expand, a heap by bound */
    size_t npending, pending_cap;
} Layers;

/* ``points_ahead`` from a draw position of layer ``lv`` (layers.py ``LayerSearch._ahead``). */
static inline long long ahead_of(Search *s, Layers *L, u64 mask, int lv, const int *counts) {
    int streak = lv == 0 ? L->start_streak : 0;
    int top = lv == 0 ? L->start_top : s->stock[lv - 1];
    return points_ahead(s, mask, counts, top, streak, s->nstock - lv);
}

/* A draw position's bound: the most points a line through it can reach. */
static inline long long slot_bound(const LSlot *st) { return st->acc + st->ahead; }

static LSlot *layer_slot(LSlot *t, size_t cap, u64 key) {
    size_t m = cap - 1;
    size_t i = home_of(key, cap);
    while (t[i].key != 0 && t[i].key != key) i = (i + 1) & m;
    return &t[i];
}

/* Room in layer ``lv``'s table for one more slot (grown at three quarters full); -1 out of
 * memory. */
static int layer_grow(Layer *y);
static inline int layer_room(Layers *L, int lv) {
    Layer *y = &L->layer[lv];
    return (y->count + 1) * 4 <= y->cap * 3 ? 0 : layer_grow(y);
}

static int layer_grow(Layer *y) {
    size_t cap = y->cap ? y->cap * 2 : 64;
    LSlot *t = calloc(cap, sizeof(LSlot));
    if (t == NULL) return -1;
    for (size_t i = 0; i < y->cap; i++)
        if (y->slot[i].key) *layer_slot(t, cap, y->slot[i].key) = y->slot[i];
    free(y->slot);
    y->slot = t;
    y->cap = cap;
    return 0;
}

/* Make the empty slot ``e`` of layer ``lv`` (after ``layer_room``) hold ``mask``, with no
 * points yet; -1 past ``max_entries`` (the table is then full). */
static int layer_claim(Layers *L, int lv, LSlot *e, u64 mask) {
    if (L->entries >= L->max_entries) {
        L->full = 1;
        return -1;
    }
    L->entries++;
    L->layer[lv].count++;
    e->key = mask + 1;
    e->acc = LLONG_MIN;
    return 0;
}

static int pending_push(Layers *L, long long bound, int level, u64 mask) {
    if (L->npending == L->pending_cap) {
        size_t cap = L->pending_cap ? L->pending_cap * 2 : 1024;
        Pending *h = realloc(L->pending, cap * sizeof(Pending));
        if (h == NULL) return -1;
        L->pending = h;
        L->pending_cap = cap;
    }
    size_t i = L->npending++;
    Pending item = {bound, mask, level};
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (L->pending[up].bound >= bound) break;
        L->pending[i] = L->pending[up];
        i = up;
    }
    L->pending[i] = item;
    return 0;
}

static Pending pending_pop(Layers *L) {
    Pending top = L->pending[0];
    Pending last = L->pending[--L->npending];
    size_t i = 0, n = L->npending;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && L->pending[c + 1].bound > L->pending[c].bound) c++;
        if (L->pending[c].bound <= last.bound) break;
        L->pending[i] = L->pending[c];
        i = c;
    }
    if (n) L->pending[i] = last;
    return top;
}

/* Expand the draw position ``st`` of layer ``lv``: walk its streaks; each end is a line's
 * score and, after the draws to the next stock card that fits, a draw position of a later
 * layer, kept with the most points that reach it (and, by bound, to be expanded, when
 * ``L->by_bound``). 0; 1 when a line reaches ``L->ceiling`` (none can do better); -1 when
 * the budget (s->failed 1) or the memory or entries (2) ran out. */
static int layer_expand(Search *s, Layers *L, int lv, LSlot *st) {
    int streak = lv == 0 ? L->start_streak : 0;
    int top = lv == 0 ? L->start_top : s->stock[lv - 1];
    u64 mask0 = st->key - 1;
    long long acc = st->acc;
    u64 free0 = st->free;
    s->nodes++;
    L->expanded++;
    if (s->nodes > s->max_nodes || ((L->expanded & 63) == 0 && out_of_time(s))) {
        s->failed = 1;
        return -1;
    }
    s->walk_cut = 0;
    size_t base = s->ends_len;
    if (walk(s, mask0, free0, top) < 0) return -1;
    int count0 = popcount(mask0);
    long long base_pts = s->pts[streak] + s->bonus[popcount(mask0 & s->peak_mask)];
    if (s->walk_cut) {
        /* the ends not reached stay possible, each line through one of the states the walk
         * had still to go on from (layers.py ``LayerSearch._expand``), never above the
         * position's own bound */
        long long u = LLONG_MIN;
        for (size_t i = 0; i < s->walk_len; i++) {
            Step *w = &s->walk[i];
            int played = popcount(w->mask) - count0, counts[14];
            rank_counts(s, w->mask, counts);
            long long v = acc - base_pts + s->pts[streak + played] +
                          s->bonus[popcount(w->mask & s->peak_mask)] +
                          points_ahead(s, w->mask, counts, w->top, streak + played,
                                       s->nstock - lv);
            if (v > u) u = v;
        }
        s->walk_len = 0;
        if (u > acc + st->ahead) u = acc + st->ahead;
        if (u > L->cut_bound) L->cut_bound = u;
        L->cut = 1;
    }
    /* Each end's next draw position (the stock index after the draws to the next card that
     * fits; past the stock: none), and its slot fetched, so that the slots' cache misses
     * overlap. */
    for (size_t k = base; k < s->ends_len; k++) {
        End *d = &s->ends[k];
        int j = d->mask == s->full ? s->nstock + 1 : next_draw(s, d->free, lv);
        d->next = j;
        if (j <= s->nstock) {
            Layer *y = &L->layer[j];
            __builtin_prefetch(&y->slot[home_of(d->mask + 1, y->cap)]);
        }
    }
    int counts0[14], counts[14], counted = 0; /* counts0: the ranks left at mask0, once needed */
    for (size_t k = base; k < s->ends_len; k++) {
        u64 m2 = s->ends[k].mask;
        u64 f2 = s->ends[k].free;
        long long now = acc + s->pts[streak + popcount(m2) - count0] +
                        s->bonus[popcount(m2 & s->peak_mask)] - base_pts;
        if (now > L->best) {
            L->best = now;
            L->best_level = lv;
            L->best_from = mask0;
            L->best_end = m2;
            if (now >= L->ceiling) { /* no line does better: the search is over */
                s->ends_len = base;
                return 1;
            }
        }
        if (m2 == s->full) continue;
        int j = s->ends[k].next;
        if (j > s->nstock) continue;
        long long then = now - s->penalty * (j - lv);
        /* every card left in one streak: never below the bound, and cheaper */
        if (then + s->pts[s->n - popcount(m2)] + peaks_left(s, m2) <= L->best) continue;
        if (layer_room(L, j) < 0) {
            s->ends_len = base;
            s->failed = 2;
            return -1;
        }
        Layer *y = &L->layer[j];
        LSlot *e = layer_slot(y->slot, y->cap, m2 + 1);
        long long ahead;
        if (e->key) {
            ahead = e->ahead;
        } else {
            if (!counted) {
                rank_counts(s, mask0, counts0);
                counted = 1;
            }
            memcpy(counts, counts0, sizeof counts); /* less the streak's cards */
            for (u64 played = m2 & ~mask0; played; played &= played - 1)
                counts[s->rank[__builtin_ctzll(played)]]--;
            ahead = ahead_of(s, L, m2, j, counts);
        }
        long long u = then + ahead;
        if (u <= L->best) continue;
        if (e->key == 0) {
            if (layer_claim(L, j, e, m2) < 0) {
                /* no room: its lines are counted by their bound alone */
                if (u > L->dropped) L->dropped = u;
                continue;
            }
            e->ahead = (int32_t)ahead;
        }
        if (then > e->acc) {
            e->acc = then;
            e->free = f2;
            e->plevel = (int16_t)lv;
            e->pmask = mask0;
            if (L->by_bound) {
                if (pending_push(L, u, j, m2) < 0) {
                    s->ends_len = base;
                    s->failed = 2;
                    return -1;
                }
            }
        }
    }
    s->ends_len = base;
    return 0;
}

static inline int layers_crowded(Layers *L) { return L->entries + L->room > L->max_entries; }

/* The heap of the positions pending, by bound, anew (none evicted or stale); -1 out of
 * memory. */
static int layers_pend(Search *s, Layers *L) {
    L->npending = 0;
    for (int lv = 0; lv <= s->nstock; lv++) {
        for (size_t i = 0; i < L->layer[lv].cap; i++) {
            LSlot *st = &L->layer[lv].slot[i];
            if (st->key == 0 || (st->done & L_DONE)) continue;
            if (pending_push(L, slot_bound(st), lv, st->key - 1) < 0) return -1;
        }
    }
    return 0;
}

/* The k-th smallest of b[0..n) (0-based, k < n), reordering b: a selection (Hoare's
 * partition around the middle element), in time linear on average where a sort of all
 * the bounds ran past the deadline (docs/research/best-score.md, step 5). */
static long long kth_smallest(long long *b, long n, long k) {
    long lo = 0, hi = n - 1;
    while (lo < hi) {
        long long pivot = b[lo + (hi - lo) / 2];
        long i = lo, j = hi;
        while (i <= j) {
            while (b[i] < pivot) i++;
            while (b[j] > pivot) j--;
            if (i <= j) {
                long long t = b[i];
                b[i++] = b[j];
                b[j--] = t;
            }
        }
        /* now b[lo..j] <= pivot, b[i..hi] >= pivot, and any between equal it */
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return b[k];
    }
    return b[k];
}

/* Make room (layers.py ``LayerSearch._evict``): drop the positions never expanded with the
 * lowest quarter of their bounds (those proved no better first), and count the highest of
 * those bounds as dropped; where fewer than ``room`` could go, stop trying. The tables are
 * rebuilt: call it between expansions only. -1 out of memory. */
static int layers_evict(Search *s, Layers *L) {
    const long long proved = -((long long)1 << 62);
    long long *b = malloc((L->entries + 1) * sizeof(long long));
    if (b == NULL) return -1;
    size_t n = 0;
    for (int lv = 0; lv <= s->nstock; lv++) {
        Layer *y = &L->layer[lv];
        for (size_t i = 0; i < y->cap; i++) {
            LSlot *st = &y->slot[i];
            if (st->key == 0 || (st->done & L_EXPANDED)) continue;
            b[n++] = (st->done & L_DONE) ? proved : slot_bound(st);
        }
    }
    if (n < L->room) {
        free(b);
        L->evicting = 0;
        return 0;
    }
    long long cut = kth_smallest(b, (long)n, (long)(n / 4));
    free(b);
    for (int lv = 0; lv <= s->nstock; lv++) {
        Layer *y = &L->layer[lv];
        if (y->cap == 0) continue;
        size_t kept = 0;
        for (size_t i = 0; i < y->cap; i++) {
            LSlot *st = &y->slot[i];
            if (st->key == 0) continue;
            if (!(st->done & L_EXPANDED) && ((st->done & L_DONE) || slot_bound(st) <= cut))
                st->key = 0; /* evicted: the table is rebuilt below */
            else
                kept++;
        }
        /* Rebuilt at half full: a layer's table shrinks with it, or the tables of the
         * layers evicted from would keep their size while others grow. */
        size_t cap = 64;
        while (cap < kept * 2) cap *= 2;
        LSlot *t = calloc(cap, sizeof(LSlot));
        if (t == NULL) return -1;
        for (size_t i = 0; i < y->cap; i++)
            if (y->slot[i].key) *layer_slot(t, cap, y->slot[i].key) = y->slot[i];
        L->entries -= y->count - kept;
        y->count = kept;
        free(y->slot);
        y->slot = t;
        y->cap = cap;
    }
    if (cut > L->dropped) L->dropped = cut;
    return layers_pend(s, L);
}

/* First the layers in the order of the stock (each draw position, once every line to it
 * has reached it, expanded unless its bound cannot beat the best line found) until
 * ``L->switch_at`` seconds or ``L->switch_nodes`` nodes, or the table is crowded; then the
 * draw positions left, the highest bound first, until the highest cannot beat the best
 * line found, room made between two expansions; or until a line reaches ``L->ceiling``.
 * 0 when finished; -1 when the budget (s->failed 1) or the memory or entries (2) ran out
 * first. */
static int layers_run(Search *s, Layers *L) {
    for (int lv = 0; lv <= s->nstock && !L->by_bound; lv++) {
        for (size_t i = 0; i < L->layer[lv].cap; i++) {
            LSlot *st = &L->layer[lv].slot[i];
            if (st->key == 0 || (st->done & L_DONE)) continue;
            if (slot_bound(st) <= L->best) {
                st->done |= L_DONE;
                continue;
            }
            if (layers_crowded(L) || s->nodes > L->switch_nodes ||
                ((L->expanded & 63) == 0 && L->switch_at > 0 && now_seconds() > L->switch_at)) {
                L->by_bound = 1;
                break;
            }
            int r = layer_expand(s, L, lv, st);
            if (r < 0) return -1;
            L->layer[lv].slot[i].done = L_DONE | L_EXPANDED;
            if (r > 0) goto finished;
        }
    }
    if (!L->by_bound) return 0;
    if (layers_pend(s, L) < 0) {
        s->failed = 2;
        return -1;
    }
    for (;;) {
        if (L->evicting && layers_crowded(L)) {
            if (out_of_time(s)) { /* an eviction takes a while: not past the deadline */
                s->failed = 1;
                return -1;
            }
            if (layers_evict(s, L) < 0) {
                s->failed = 2;
                return -1;
            }
        }
        if (!L->npending) break;
        Pending p = pending_pop(L);
        if (p.bound <= L->best) break; /* no draw position left can beat the best line */
        Layer *y = &L->layer[p.level];
        LSlot *st = layer_slot(y->slot, y->cap, p.mask + 1);
        if (st->key == 0 || (st->done & L_DONE)) continue; /* evicted, or expanded */
        if (slot_bound(st) != p.bound) continue; /* a later entry */
        int r = layer_expand(s, L, p.level, st);
        if (r < 0) return -1;
        st = layer_slot(y->slot, y->cap, p.mask + 1);
        st->done = L_DONE | L_EXPANDED;
        if (r > 0) break;
    }
finished: /* mark what is left as proved no better */
    for (int lv = 0; lv <= s->nstock; lv++) {
        Layer *y = &L->layer[lv];
        for (size_t i = 0; i < y->cap; i++) y->slot[i].done |= L_DONE;
    }
    return 0;
}

/* The bound on every line: the best found, the bound of each draw position not expanded,
 * and of each whose walk was cut (every line passes through one of them or ended in a
 * stop already counted); never above the start's own (``ceiling``). */
static long long layers_bound(Search *s, Layers *L) {
    long long b = L->best;
    if (L->cut && L->cut_bound > b) b = L->cut_bound;
    if (L->dropped > b) b = L->dropped; /* evicted, or dropped from a full table */
    for (int lv = 0; lv <= s->nstock; lv++) {
        Layer *y = &L->layer[lv];
        for (size_t i = 0; i < y->cap; i++) {
            LSlot *st = &y->slot[i];
            if (st->key == 0 || (st->done & L_DONE)) continue;
            long long u = slot_bound(st);
            if (u > b) b = u;
        }
    }
    return b < L->ceiling ? b : L->ceiling;
}

/* layers(ranks, uncovers, fit, stock, pts, bonus, penalty, peak_mask, full, mask, free,
 *        top, streak, max_nodes, seconds, max_entries, walk_limit, share, ceiling, room,
 *        wraps) -> (points, bound, complete, nodes, ends) */
PyObject *layers(PyObject *self, PyObject *args) {
    PyObject *ranks_o, *unc_o, *fit_o, *stock_o, *pts_o, *bonus_o;
    long long penalty, max_nodes, max_entries, walk_limit, ceiling, room;
    unsigned long long peak_mask, full, mask0, free0;
    int top0, streak, wraps, longest;
    double seconds, share;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOOLKKKKiiLdLLdLLpi", &ranks_o, &unc_o, &fit_o, &stock_o,
                          &pts_o, &bonus_o, &penalty, &peak_mask, &full, &mask0, &free0, &top0,
                          &streak, &max_nodes, &seconds, &max_entries, &walk_limit, &share,
                          &ceiling, &room, &wraps, &longest))
        return NULL;
    if (room < 1) {
        PyErr_SetString(PyExc_ValueError, "room: 1 or more");
        return NULL;
    }
    Search s;
    memset(&s, 0, sizeof s);
    Layers L;
    memset(&L, 0, sizeof L);
    PyObject *result = NULL;
    if (setup_best(&s, ranks_o, unc_o, fit_o, stock_o, pts_o, bonus_o, penalty, peak_mask, full,
                   top0, streak, max_nodes, seconds) < 0)
        goto done;
    s.walk_limit = walk_limit > 0 ? walk_limit : 0;
    s.wraps = wraps;
    if (longest < s.longest) s.longest = longest < streak ? streak : longest;
    if (s.pts[s.npts - 1] + s.bonus[s.nbonus - 1] > INT32_MAX) { /* a slot's ``ahead`` */
        PyErr_SetString(PyExc_ValueError, "points: at most 2**31 - 1 still to come");
        goto done;
    }
    if (alloc_work(&s) < 0) goto done;
    L.layer = calloc((size_t)s.nstock + 1, sizeof(Layer));
    if (L.layer == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    L.max_entries = max_entries > 0 ? (size_t)max_entries : ((size_t)1 << 22);
    L.room = L.max_entries / (size_t)room;
    L.evicting = 1;
    L.start_streak = streak;
    L.start_top = top0;
    L.best = 0;
    L.ceiling = ceiling;
    L.best_level = -1;
    L.switch_at = seconds >= 0 ? now_seconds() + share * seconds : 0;
    L.switch_nodes = max_nodes < 0 ? ((long long)1 << 62) : (long long)(share * (double)max_nodes);
    if (layer_room(&L, 0) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    LSlot *first = layer_slot(L.layer[0].slot, L.layer[0].cap, mask0 + 1);
    if (layer_claim(&L, 0, first, mask0) < 0) {
        PyErr_SetString(PyExc_ValueError, "max_entries: 1 or more");
        goto done;
    }
    first->acc = 0;
    first->free = free0;
    first->plevel = -1;
    int counts0[14];
    rank_counts(&s, mask0, counts0);
    first->ahead = (int32_t)ahead_of(&s, &L, mask0, 0, counts0);
    int rc;
    long long bound;
    Py_BEGIN_ALLOW_THREADS
    rc = layers_run(&s, &L);
    bound = layers_bound(&s, &L);
    Py_END_ALLOW_THREADS
    PyObject *ends = PyList_New(0);
    if (ends == NULL) goto done;
    if (L.best_level < 0) {
        PyObject *pair = Py_BuildValue("(iK)", 0, (unsigned long long)mask0);
        if (pair == NULL || PyList_Append(ends, pair) < 0) {
            Py_XDECREF(pair);
            Py_DECREF(ends);
            goto done;
        }
        Py_DECREF(pair);
    } else {
        int lv = L.best_level;
        u64 from = L.best_from, end = L.best_end;
        for (;;) {
            PyObject *pair = Py_BuildValue("(iK)", lv, (unsigned long long)end);
            if (pair == NULL || PyList_Insert(ends, 0, pair) < 0) {
                Py_XDECREF(pair);
                Py_DECREF(ends);
                goto done;
            }
            Py_DECREF(pair);
            if (lv == 0) break;
            LSlot *e = layer_slot(L.layer[lv].slot, L.layer[lv].cap, from + 1);
            end = from;
            from = e->pmask;
            lv = e->plevel;
        }
    }
    int complete = rc == 0 && bound == L.best;
    result = Py_BuildValue("(LLNLN)", L.best, bound, PyBool_FromLong(complete), s.nodes, ends);
done:
    if (L.layer != NULL) {
        for (int i = 0; i <= s.nstock; i++) free(L.layer[i].slot);
        free(L.layer);
    }
    free(L.pending);
    search_free(&s);
    return result;
}
