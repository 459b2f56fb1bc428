/* The best-score search of app/engine/solver.py (``_BestSearch._value_fast``) in C: an
 * optional accelerator, built by the normal install where a C compiler exists (setup.py,
 * ``optional=True``). The pure Python search is the fallback and the reference: the two
 * search the same draw positions in the same order and count nodes alike, so they give
 * the same value, the same line and the same node count (tests/engine/test_best_accel.py).
 *
 * best(ranks, uncovers, fit, stock, pts, bonus, penalty, peak_mask, full,
 *      mask, free, top, streak, max_nodes, seconds, max_entries)
 *   -> (value or None, nodes, ends)
 *
 * ``ends``: the draw positions along the best line as (stock index, the mask its streak
 * ends on), the first the position solved (index 0); value None when the budget (nodes, seconds, or
 * ``max_entries`` entries of the table) ran out. At most 56 tableau positions and 255
 * stock cards (a key is the mask << 8 | the stock index).
 *
 * layers(ranks, uncovers, fit, stock, pts, bonus, penalty, peak_mask, full,
 *        mask, free, top, streak, max_nodes, seconds, max_entries, walk_limit, share,
 *        ceiling, room, wraps, longest)
 *   -> (points, bound, complete, nodes, ends)
 *
 * The layered search of the same draw positions (solver.py ``_LayerSearch``, the answer of
 * an analysis): the most points of the lines found, a sound bound on any line's, whether
 * the search finished (the points are then the best, and the bound equal to them), and the
 * best line's draw positions as ``best`` gives them. Layer by layer for ``share`` of the
 * budget, then by bound. ``max_entries`` draw positions at most are kept (past them a new
 * one counts by its bound alone), a streak's walk stops after ``walk_limit`` steps (0:
 * never), no streak of any line takes more than ``longest`` cards (the bound's cap). Its
 * answers are the Python search's when it finishes (tests/engine/test_best_accel.py); its
 * order of expansion within a layer and among equal bounds is its tables', so lines of
 * equal points may differ.
 *
 * longest(ranks, uncovers, fit, stock, mask, free, top, streak, length, max_nodes,
 *         seconds, max_entries, wraps) -> (found: True, False, or None out of budget; nodes)
 *
 * Whether some line has a streak of ``length`` cards (solver.py
 * ``_LayerSearch._streak_reaches``): the same states in the same order, the same nodes.
 *
 * Clear(ranks, uncovers, fit, stock, full, hall).wins(mask, free, index, top, max_nodes,
 *      seconds, max_entries) -> (won: True, False, or None out of budget; nodes; the line)
 *
 * The clearing search without redeals (solver.py ``clear_search``, for the hints), an
 * object that keeps its table of lost positions between questions on one deal and stock;
 * its own order, the Python search's answers (tests/engine/test_clear_accel.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint64_t u64;

/* A draw position's value: key (mask << 8 | stock index) + 1, 0 for an empty slot. */
typedef struct {
    u64 key;
    int64_t best;
} Entry;

/* A mask one walk has reached, with the tops (bit r: rank r, 0 a joker) it was reached with. */
typedef struct {
    u64 mask;
    uint32_t gen;
    uint16_t tops;
    uint16_t pad;
} SeenSlot;

typedef struct {
    u64 mask;
    u64 free;
    int top;
} Step;

typedef struct {
    u64 mask;
    u64 free;
    int next; /* the next draw position's stock index, past the stock: none */
} End;

typedef struct {
    int n;
    u64 full;
    int rank[64];
    int unc_off[65];
    int *unc_q;
    u64 *unc_cover;
    u64 fit[15];
    int nstock;
    int *stock;
    u64 *sfit; /* sfit[j]: the positions whose card may go on the top after j draws */
    long long *pts;
    Py_ssize_t npts;
    long long *bonus;
    Py_ssize_t nbonus;
    long long penalty;
    u64 peak_mask;
    u64 rank_mask[14]; /* the positions holding each rank (0: a joker) */
    int wraps;         /* a King and an Ace are neighbours */
    /* the clearing search's bound: Hall's sets I of ranks as (the positions holding a rank of
     * I, those holding a rank of N(I)), and hall_stock[f * (nstock + 1) + i]: the stock
     * cards from index i on with a rank in the f-th set's N(I) */
    int nhall;
    int hw_popcnt; /* the processor counts bits (hall_short) */
    u64 *hall_in, *hall_near;
    int *hall_stock;
    long long nodes;
    long long visits; /* the clearing search's positions, drawn to or not */
    long long max_nodes;
    int timed;
    double deadline;
    int failed; /* 1: out of budget, 2: out of memory */
    /* the table of draw positions */
    Entry *tt;
    size_t tt_cap, tt_count, tt_max;
    /* one streak's walk: the masks it reached (each the end of a streak) with their tops;
     * ``seen_count`` counts the states (mask, top), ``seen_masks`` the masks */
    SeenSlot *seen;
    size_t seen_cap, seen_count, seen_masks;
    uint32_t gen;
    Step *walk;
    size_t walk_len, walk_cap;
    End *ends;
    size_t ends_len, ends_cap;
    /* the layered search: a walk stops after ``walk_limit`` steps (0: never), and says so */
    long long walk_limit;
    int walk_cut;
    /* no streak of any line takes more cards than this (solver.py ``streak_ceiling``) */
    int longest;
} Search;

static inline u64 mix(u64 x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int out_of_time(Search *s) { return s->timed && now_seconds() > s->deadline; }

/* -- the table ------------------------------------------------------------------------ */

static inline int popcount(u64 x) {
#if defined(__POPCNT__)
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

static inline u64 tt_key(u64 mask, int idx) { return (mask << 8 | (u64)idx) + 1; }

/* Where open addressing starts looking for ``key`` in a table of ``cap`` slots (a power of 2). */
static inline size_t home_of(u64 key, size_t cap) { return (size_t)mix(key) & (cap - 1); }

static inline Entry *tt_find(Search *s, u64 key) {
    size_t m = s->tt_cap - 1;
    size_t i = home_of(key, s->tt_cap);
    for (;;) {
        Entry *e = &s->tt[i];
        if (e->key == key) return e;
        if (e->key == 0) return NULL;
        i = (i + 1) & m;
    }
}

static Entry *tt_slot(Entry *tt, size_t cap, u64 key) {
    size_t m = cap - 1;
    size_t i = home_of(key, cap);
    while (tt[i].key != 0 && tt[i].key != key) i = (i + 1) & m;
    return &tt[i];
}

static int tt_put(Search *s, u64 key, long long best) {
    if ((s->tt_count + 1) * 4 > s->tt_cap * 3) {
        if (s->tt_count >= s->tt_max) {
            s->failed = 2;
            return -1;
        }
        size_t cap = s->tt_cap * 2;
        Entry *tt = calloc(cap, sizeof(Entry));
        if (tt == NULL) {
            s->failed = 2;
            return -1;
        }
        for (size_t i = 0; i < s->tt_cap; i++) {
            if (s->tt[i].key != 0) *tt_slot(tt, cap, s->tt[i].key) = s->tt[i];
        }
        free(s->tt);
        s->tt = tt;
        s->tt_cap = cap;
    }
    Entry *e = tt_slot(s->tt, s->tt_cap, key);
    if (e->key == 0) s->tt_count++;
    e->key = key;
    e->best = best;
    return 0;
}

/* -- one walk's sets, cleared by a new generation -------------------------------------- */

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
 * of the masks took two (they were four fifths of a six-peaks walk's time). */
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

/* The next draw position after stock index ``idx`` where one of the ``free_`` cards can be
 * played: the first later index whose top one of them fits, nstock + 1 when none does
 * (solver.py: a draw with no card to play is followed straight to it). */
static inline int next_draw(Search *s, u64 free_, int idx) {
    int j = idx + 1;
    while (j <= s->nstock && !(free_ & s->sfit[j])) j++;
    return j;
}

/* -- the search (solver.py, _BestSearch._value_fast) ------------------------------------ */

/* Every mask a streak can reach from (mask0, top0), pushed on ``ends`` in the order the
 * Python walk finds them (mask0 first); the walk is deduplicated on (mask, top). Cut short
 * past ``walk_limit`` steps, it says so (``walk_cut``) and leaves on ``walk`` the states it
 * had still to go on from. */
static int walk(Search *s, u64 mask0, u64 free0, int top0) {
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
     * played (solver.py), its slot in the table fetched while the others are looked at. */
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

/* -- the clearing search (solver.py: ``clear_search``) --------------------------------- */

/* Whether the tableau can be cleared without redeals: a depth-first search over positions
 * (removed mask, stock index i, the top's rank), playing first the highest free position
 * that fits (in every layout a lower row, the cards holding others up), then drawing.
 * A draw that leaves no card playable is followed straight to the next draw after which
 * one is (there is no other move in between). The game graph is acyclic, so a position
 * searched without a win is lost, and the table keeps, per (mask, top), the lowest stock
 * index from which it was proved lost: from (mask, i, top) the player can make every line
 * of (mask, j, top), j > i, by drawing j - i cards more before that line's first draw, and
 * the positions after it are the same; so (mask, i, top) lost makes (mask, j, top) lost.
 * An entry's key is (mask << 4 | top + 1) + 1, its ``best`` that index.
 *
 * The table outlives a call: the hint asks about one deal's position, then about each
 * move's, and a position proved lost stays lost. A call that runs out of its budget leaves
 * only complete proofs in it. The same question answered by the Python search
 * (``_Search._wins``, which also has the bound and restarts) gets the same answer. */

/* The bound of solver.py (its module docstring argues it): every tableau card left must be
 * played on a distinct predecessor, of a rank it may go on: a tableau card still in place,
 * a stock card still to come, or the top, which counts only if a card of the set can go on
 * it now (after any other move it is covered for good). So a set I of ranks whose cards
 * left outnumber the predecessors with a rank in N(I) cannot be cleared (Hall's theorem);
 * this checks the sets solver.py gives (ranks r, and r, r + 2). Off with jokers. */
#define HALL_SHORT(NAME, POPCOUNT)                                                          \
    static int NAME(Search *s, u64 mask, u64 free_, int idx, int top) {                     \
        u64 left = s->full & ~mask;                                                         \
        u64 fits = free_ & s->fit[top + 1];                                                 \
        int stride = s->nstock + 1;                                                         \
        for (int f = 0; f < s->nhall; f++) {                                                \
            int need = POPCOUNT(left & s->hall_in[f]);                                      \
            if (!need) continue;                                                            \
            int have = POPCOUNT(left & s->hall_near[f]) + s->hall_stock[f * stride + idx];  \
            if (need > have + 1 || (need == have + 1 && !(fits & s->hall_in[f]))) return 1; \
        }                                                                                   \
        return 0;                                                                           \
    }

HALL_SHORT(hall_short_plain, popcount)

/* The bound counts bits on every position searched: where the processor has an
 * instruction for it (x86-64 machines of the last fifteen years; the build does not assume
 * one), the same function compiled to use it, a third less time on the hint's samples. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
__attribute__((target("popcnt"))) HALL_SHORT(hall_short_hw, __builtin_popcountll)
static int has_popcnt(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("popcnt");
}
#else
#define hall_short_hw hall_short_plain
static int has_popcnt(void) { return 0; }
#endif

static inline int hall_short(Search *s, u64 mask, u64 free_, int idx, int top) {
    return s->hw_popcnt ? hall_short_hw(s, mask, free_, idx, top)
                        : hall_short_plain(s, mask, free_, idx, top);
}

static inline u64 lost_key(u64 mask, int top) { return (mask << 4 | (u64)(top + 1)) + 1; }

/* 1: won (the winning moves are pushed on ``line``, the last first: a position, or -1 for
 * a draw), 0: lost, -1: out of budget or memory (``failed``). */
static int clears(Search *s, u64 mask, u64 free_, int idx, int top, int drawn, int *line,
                  int *line_len) {
    u64 key = lost_key(mask, top);
    Entry *e = tt_find(s, key);
    if (e != NULL && e->best <= idx) return 0;
    /* A node is a position reached by a play (or asked about), as in the Python search,
     * where a run of draws is a loop inside one call: the same budget, about the same
     * work; the clock is read every 1,024 positions. */
    s->nodes += !drawn;
    if (++s->visits % 1024 == 0 && out_of_time(s)) {
        s->failed = 1;
        return -1;
    }
    if (s->nodes > s->max_nodes) {
        s->failed = 1;
        return -1;
    }
    if (s->nhall && hall_short(s, mask, free_, idx, top)) return 0;
    u64 playable = free_ & s->fit[top + 1];
    while (playable) {
        int p = 63 - __builtin_clzll(playable);
        u64 b = (u64)1 << p;
        playable ^= b;
        u64 m2 = mask | b;
        int r = s->rank[p];
        int won;
        if (m2 == s->full) {
            won = 1;
        } else {
            u64 f2 = free_ & ~b;
            for (int k = s->unc_off[p]; k < s->unc_off[p + 1]; k++) {
                u64 cq = s->unc_cover[k];
                if ((cq & m2) == cq) f2 |= (u64)1 << s->unc_q[k];
            }
            won = clears(s, m2, f2, idx, r, 0, line, line_len);
        }
        if (won < 0) return -1;
        if (won) {
            line[(*line_len)++] = p;
            return 1;
        }
    }
    int j = next_draw(s, free_, idx);
    if (j <= s->nstock) {
        int won = clears(s, mask, free_, j, s->stock[j - 1], 1, line, line_len);
        if (won < 0) return -1;
        if (won) {
            for (int k = idx; k < j; k++) line[(*line_len)++] = -1;
            return 1;
        }
    }
    e = tt_find(s, key); /* the calls above may have moved the table */
    if (e != NULL) {
        if (e->best > idx) e->best = idx;
    } else if (tt_put(s, key, idx) < 0) {
        return -1;
    }
    return 0;
}

/* -- the layered search (solver.py: ``_LayerSearch``) ----------------------------------- */

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

/* One rank further along ``rank_cover``'s programme, the rank weighing ``w``. */
static inline void cover_step(int *in, int *out, int w) {
    int in2 = (*in < *out ? *in : *out) + w; /* this rank in: the one before either way */
    *out = *in;                             /* this rank out: the one before in */
    *in = in2;
}

/* The least weight of a set of ranks holding one of every two neighbouring ranks, ``w[r - 1]``
 * for rank r (solver.py ``_rank_cover``): ``*in_set`` among the sets that hold the rank
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
 * (solver.py ``_cards_bound``). */
static inline long long split_points(Search *s, int streak, int l1, int anyway, int streaks,
                                     int part, int draws) {
    long long full = s->pts[anyway] - s->penalty, rest = s->pts[part] - s->penalty;
    if (full < 0) full = 0;
    if (rest < 0) rest = 0;
    long long later = streaks >= draws ? draws * full : streaks * full + rest;
    return s->pts[streak + l1] - s->pts[streak] + later;
}

/* How many cards of each rank (0: a joker) are left (``mask`` removed). */
static void rank_counts(Search *s, u64 mask, int *counts) {
    u64 rest = s->full & ~mask;
    for (int r = 0; r <= 13; r++) counts[r] = popcount(s->rank_mask[r] & rest);
}

/* The most cards a streak can take from the cards left (``counts`` of each rank): from the
 * top ``top`` (``*first``) and from any top (``*anyway``): solver.py ``_streak_caps`` (it
 * argues it). */
static void streak_caps(Search *s, const int *counts, int top, int *first, int *anyway) {
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
 * streak taking more than ``s->longest`` cards: solver.py ``_cards_bound`` (it argues it),
 * with the caps of ``streak_caps``. */
static long long cards_bound(Search *s, const int *counts, int top, int streak, int draws) {
    int left = 0, first, anyway, longest = s->longest;
    for (int r = 0; r <= 13; r++) left += counts[r];
    streak_caps(s, counts, top, &first, &anyway);
    if (anyway > longest) anyway = longest;
    if (first > longest - streak) first = longest - streak > 0 ? longest - streak : 0;
    /* The most over the first streak's length l1 <= first (solver.py ``_cards_bound``):
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
static inline long long peaks_left(Search *s, u64 mask) {
    return s->bonus[popcount(s->peak_mask)] - s->bonus[popcount(mask & s->peak_mask)];
}

/* The most points still to come from a position (``mask`` removed, ``counts`` of each rank
 * left, ``cards_bound``'s other arguments): the cards' and every peak left's bonus (solver.py
 * ``_points_ahead``, ``_score_bound`` argues it). */
static inline long long points_ahead(Search *s, u64 mask, const int *counts, int top,
                                     int streak, int draws) {
    return cards_bound(s, counts, top, streak, draws) + peaks_left(s, mask);
}

/* ``points_ahead`` from a draw position of layer ``lv`` (solver.py ``_LayerSearch._ahead``). */
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
         * had still to go on from (solver.py ``_LayerSearch._expand``), never above the
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
 * partition around the middle element), in time linear on average where a sort of six
 * peaks' two million bounds took 0.2 s. */
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

/* Make room (solver.py ``_LayerSearch._evict``): drop the positions never expanded with the
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

/* -- the Python function ---------------------------------------------------------------- */

static int ints_of(PyObject *seq, long long **out, Py_ssize_t *len) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of ints");
    if (fast == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    long long *a = malloc((size_t)(n > 0 ? n : 1) * sizeof(long long));
    if (a == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        a[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (a[i] == -1 && PyErr_Occurred()) {
            free(a);
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    *out = a;
    *len = n;
    return 0;
}

static void search_free(Search *s) {
    free(s->unc_q);
    free(s->unc_cover);
    free(s->stock);
    free(s->sfit);
    free(s->pts);
    free(s->bonus);
    free(s->tt);
    free(s->seen);
    free(s->walk);
    free(s->ends);
    free(s->hall_in);
    free(s->hall_near);
    free(s->hall_stock);
}

/* The tables both searches read (``ranks``, ``uncovers``, ``fit``, ``stock``) into ``s``;
 * -1 with a Python error set. */
static int load_tables(Search *s, PyObject *ranks_o, PyObject *unc_o, PyObject *fit_o,
                       PyObject *stock_o) {
    long long *tmp = NULL;
    Py_ssize_t len = 0;
    PyObject *fast = NULL;
    if (ints_of(ranks_o, &tmp, &len) < 0) goto fail;
    if (len > 56 || len < 1) { /* a key is the mask << 8 | the stock index */
        free(tmp);
        PyErr_SetString(PyExc_ValueError, "1 to 56 tableau positions");
        goto fail;
    }
    s->n = (int)len;
    for (int i = 0; i < s->n; i++) s->rank[i] = (int)tmp[i];
    free(tmp);
    for (int i = 0; i < s->n; i++) {
        if (s->rank[i] < 0 || s->rank[i] > 13) {
            PyErr_SetString(PyExc_ValueError, "ranks: 0 to 13");
            goto fail;
        }
        s->rank_mask[s->rank[i]] |= (u64)1 << i;
    }

    fast = PySequence_Fast(unc_o, "uncovers: a sequence");
    if (fast == NULL) goto fail;
    if (PySequence_Fast_GET_SIZE(fast) != s->n) {
        PyErr_SetString(PyExc_ValueError, "uncovers: one entry a position");
        goto fail;
    }
    {
        int total = 0;
        for (int p = 0; p < s->n; p++) {
            Py_ssize_t k = PySequence_Size(PySequence_Fast_GET_ITEM(fast, p));
            if (k < 0) goto fail;
            total += (int)k;
        }
        s->unc_q = malloc((size_t)(total + 1) * sizeof(int));
        s->unc_cover = malloc((size_t)(total + 1) * sizeof(u64));
        if (s->unc_q == NULL || s->unc_cover == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        int at = 0;
        for (int p = 0; p < s->n; p++) {
            s->unc_off[p] = at;
            PyObject *pairs = PySequence_Fast(PySequence_Fast_GET_ITEM(fast, p), "pairs");
            if (pairs == NULL) goto fail;
            for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(pairs); k++) {
                int q;
                unsigned long long cq;
                if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(pairs, k), "iK", &q, &cq)) {
                    Py_DECREF(pairs);
                    goto fail;
                }
                if (q < 0 || q >= s->n) {
                    Py_DECREF(pairs);
                    PyErr_SetString(PyExc_ValueError, "uncovers: a position out of range");
                    goto fail;
                }
                s->unc_q[at] = q;
                s->unc_cover[at] = cq;
                at++;
            }
            Py_DECREF(pairs);
        }
        s->unc_off[s->n] = at;
    }

    {
        PyObject *ff = PySequence_Fast(fit_o, "fit");
        if (ff == NULL) goto fail;
        if (PySequence_Fast_GET_SIZE(ff) != 15) {
            Py_DECREF(ff);
            PyErr_SetString(PyExc_ValueError, "fit: 15 masks");
            goto fail;
        }
        for (int i = 0; i < 15; i++) {
            s->fit[i] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(ff, i));
            if (PyErr_Occurred()) {
                Py_DECREF(ff);
                goto fail;
            }
        }
        Py_DECREF(ff);
    }

    if (ints_of(stock_o, &tmp, &len) < 0) goto fail;
    if (len > 255) {
        free(tmp);
        PyErr_SetString(PyExc_ValueError, "at most 255 stock cards");
        goto fail;
    }
    s->nstock = (int)len;
    s->stock = malloc((size_t)(len + 1) * sizeof(int));
    if (s->stock == NULL) {
        free(tmp);
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < len; i++) s->stock[i] = (int)tmp[i];
    free(tmp);
    s->sfit = malloc((size_t)(len + 1) * sizeof(u64));
    if (s->sfit == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    s->sfit[0] = 0;
    for (Py_ssize_t j = 1; j <= len; j++) {
        if (s->stock[j - 1] < 0 || s->stock[j - 1] > 13) {
            PyErr_SetString(PyExc_ValueError, "stock: ranks 0 to 13");
            goto fail;
        }
        s->sfit[j] = s->fit[s->stock[j - 1] + 1];
    }
    Py_XDECREF(fast);
    return 0;
fail:
    Py_XDECREF(fast);
    return -1;
}

/* The buffers of one search's walks and its table; -1 with a Python error set. */
static int alloc_work(Search *s) {
    s->tt_cap = 1 << 12;
    s->tt = calloc(s->tt_cap, sizeof(Entry));
    s->seen_cap = 1 << 8;
    s->seen = calloc(s->seen_cap, sizeof(SeenSlot));
    s->walk_cap = 1 << 8;
    s->walk = malloc(s->walk_cap * sizeof(Step));
    s->ends_cap = 1 << 10;
    s->ends = malloc(s->ends_cap * sizeof(End));
    if (!s->tt || !s->seen || !s->walk || !s->ends) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* What both best-score searches (``best``, ``layers``) are first given, into ``s``: the
 * tables, the scoring, the start's top and streak, the budget; -1 with a Python error set. */
static int setup_best(Search *s, PyObject *ranks_o, PyObject *unc_o, PyObject *fit_o,
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

static PyObject *best(PyObject *self, PyObject *args) {
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


/* layers(ranks, uncovers, fit, stock, pts, bonus, penalty, peak_mask, full, mask, free,
 *        top, streak, max_nodes, seconds, max_entries, walk_limit, share, ceiling, room,
 *        wraps) -> (points, bound, complete, nodes, ends) */
static PyObject *layers(PyObject *self, PyObject *args) {
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


/* longest(ranks, uncovers, fit, stock, mask, free, top, streak, length, max_nodes, seconds,
 *         max_entries, wraps) -> (found: True, False, or None out of budget; nodes)
 *
 * Whether some line from the position has a streak of ``length`` cards or more (the
 * streak going on counted whole): solver.py ``_LayerSearch._streak_reaches``, the same
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
    /* fan[i * 14 + k], k < nfan[i]: solver.py ``_first_draws`` (the latest first) */
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
             * from the second or the state it was drawn to from (solver.py argues it) */
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

static PyObject *longest(PyObject *self, PyObject *args) {
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


/* streak(ranks, uncovers, fit, mask, free, top, end) -> the positions played, in order
 *
 * The cards of a streak from (mask, top) that ends on the mask ``end``: solver.py,
 * _BestSearch._streak_to, the same walk (deduplicated on (mask, top), only masks inside
 * ``end``), each step kept with the one it came from, in the same order: the same
 * cards. */
typedef struct {
    u64 mask;
    u64 free;
    int top;
    int card;
    long long parent;
} Trail;

static PyObject *streak(PyObject *self, PyObject *args) {
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

/* -- the clearing search as a Python object, its table kept between questions ---------- */

typedef struct {
    PyObject_HEAD Search s;
    int busy;
} ClearObject;

static void Clear_dealloc(ClearObject *self) {
    search_free(&self->s);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Clear_init(ClearObject *self, PyObject *args, PyObject *kwds) {
    PyObject *ranks_o, *unc_o, *fit_o, *stock_o, *hall_o;
    unsigned long long full;
    (void)kwds;
    if (!PyArg_ParseTuple(args, "OOOOKO", &ranks_o, &unc_o, &fit_o, &stock_o, &full, &hall_o))
        return -1;
    Search *s = &self->s;
    search_free(s);
    memset(s, 0, sizeof *s);
    if (load_tables(s, ranks_o, unc_o, fit_o, stock_o) < 0) return -1;
    s->tt_cap = 1 << 10; /* a sample's table: thousands of positions, rarely more */
    s->tt = calloc(s->tt_cap, sizeof(Entry));
    if (s->tt == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    s->full = full;
    PyObject *hall = PySequence_Fast(hall_o, "hall: a sequence of (ranks, their neighbours)");
    if (hall == NULL) return -1;
    Py_ssize_t nh = PySequence_Fast_GET_SIZE(hall);
    s->hall_in = calloc((size_t)nh + 1, sizeof(u64));
    s->hall_near = calloc((size_t)nh + 1, sizeof(u64));
    s->hall_stock = calloc(((size_t)nh + 1) * (size_t)(s->nstock + 1), sizeof(int));
    if (!s->hall_in || !s->hall_near || !s->hall_stock) {
        Py_DECREF(hall);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t f = 0; f < nh; f++) {
        unsigned long long in_ranks, near_ranks;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(hall, f), "KK", &in_ranks, &near_ranks)) {
            Py_DECREF(hall);
            return -1;
        }
        for (int p = 0; p < s->n; p++) {
            if (in_ranks >> s->rank[p] & 1) s->hall_in[f] |= (u64)1 << p;
            if (near_ranks >> s->rank[p] & 1) s->hall_near[f] |= (u64)1 << p;
        }
        int *counts = &s->hall_stock[f * (s->nstock + 1)];
        for (int i = s->nstock - 1; i >= 0; i--)
            counts[i] = counts[i + 1] + (int)(near_ranks >> s->stock[i] & 1);
    }
    s->nhall = (int)nh;
    s->hw_popcnt = has_popcnt();
    Py_DECREF(hall);
    return 0;
}

static PyObject *Clear_wins(ClearObject *self, PyObject *args) {
    unsigned long long mask0, free0;
    int idx, top0;
    long long max_nodes, max_entries;
    double seconds;
    if (!PyArg_ParseTuple(args, "KKiiLdL", &mask0, &free0, &idx, &top0, &max_nodes, &seconds,
                          &max_entries))
        return NULL;
    Search *s = &self->s;
    if (idx < 0 || idx > s->nstock || top0 < -1 || top0 > 13) {
        PyErr_SetString(PyExc_ValueError, "index: 0 to the stock's size, top: -1 to 13");
        return NULL;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "one question at a time");
        return NULL;
    }
    int *line = malloc((size_t)(s->n + s->nstock + 1) * sizeof(int));
    if (line == NULL) return PyErr_NoMemory();
    int line_len = 0;
    s->nodes = 0;
    s->visits = 0;
    s->max_nodes = max_nodes < 0 ? ((long long)1 << 62) : max_nodes;
    s->timed = seconds >= 0;
    s->deadline = now_seconds() + seconds;
    s->tt_max = max_entries > 0 ? (size_t)max_entries : ((size_t)1 << 22);
    s->failed = 0;
    int rc;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    rc = clears(s, mask0, free0, idx, top0, 0, line, &line_len);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    PyObject *result = NULL;
    if (rc < 0) {
        result = Py_BuildValue("(OLN)", Py_None, s->nodes, PyList_New(0));
    } else {
        PyObject *moves = PyList_New(line_len);
        if (moves != NULL) {
            for (int k = 0; k < line_len; k++) {
                PyObject *code = PyLong_FromLong(line[line_len - 1 - k]);
                if (code == NULL) {
                    Py_CLEAR(moves);
                    break;
                }
                PyList_SET_ITEM(moves, k, code);
            }
        }
        if (moves != NULL) result = Py_BuildValue("(OLN)", rc ? Py_True : Py_False, s->nodes, moves);
    }
    free(line);
    return result;
}

static PyObject *Clear_lost(ClearObject *self, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromSize_t(self->s.tt_count);
}

static PyMethodDef clear_methods[] = {
    {"wins", (PyCFunction)Clear_wins, METH_VARARGS,
     "wins(mask, free, index, top, max_nodes, seconds, max_entries) -> (won or None, nodes, "
     "the winning line: positions played, -1 for a draw)"},
    {"lost", (PyCFunction)Clear_lost, METH_NOARGS, "How many positions the table holds."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ClearType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "app.engine._bestscore.Clear",
    .tp_doc = "Clear(ranks, uncovers, fit, stock, full, hall): the clearing search of one deal and "
              "stock, its table kept between questions.",
    .tp_basicsize = sizeof(ClearObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Clear_init,
    .tp_dealloc = (destructor)Clear_dealloc,
    .tp_methods = clear_methods,
};

static PyMethodDef methods[] = {
    {"best", best, METH_VARARGS, "The best-score search over draw positions (solver.py)."},
    {"layers", layers, METH_VARARGS, "The layered best-score search (solver.py)."},
    {"streak", streak, METH_VARARGS, "The cards of a streak to a given end (solver.py)."},
    {"longest", longest, METH_VARARGS, "Whether a line has a streak so long (solver.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_bestscore", "The solver's best-score and clearing searches in C (optional).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__bestscore(void) {
    if (PyType_Ready(&ClearType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&ClearType);
    if (PyModule_AddObject(m, "Clear", (PyObject *)&ClearType) < 0) {
        Py_DECREF(&ClearType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
