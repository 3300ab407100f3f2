/* The compiled core of peirce.engine.ground_ask: a Datalog context's least model and the
 * replay of Prolog's search, as GroundProgram computes them in Python (see that module's
 * docstring for what is computed; this file computes the same, node for node).
 *
 * Nothing here reads text: clauses arrive as the Python objects the translators built
 * (peirce.logic's Clause, Literal, Var, Const), names are Python strings compared by value,
 * and every size is bounded by the limits the caller passes (literals of the model, join
 * steps, steps of a search, the depth of a proof).
 *
 * build(clauses, max_facts) -> Program | None | NotImplemented
 *     None: not Datalog over names, or a model past max_facts (as GroundProgram.of);
 *     NotImplemented: a clause of more than MAX_VARS variables (left to the Python).
 * Program.contradicted, Program.attempt(neg, key, depth, max_bound, max_steps),
 * Program.holds(neg, key).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

/* -- growable arrays ---------------------------------------------------------------------- */

/* the array `v` of `size`-byte items with room for `need` of them (its room doubled, from 16),
 * `*cap` updated; NULL when memory ran out (`v` and `*cap` as they were) */
static void *grow(void *v, Py_ssize_t *cap, Py_ssize_t need, size_t size) {
    if (need <= *cap) return v;
    Py_ssize_t room = *cap ? *cap : 16;
    while (room < need) room *= 2;
    void *got = PyMem_Realloc(v, (size_t)room * size);
    if (got == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    *cap = room;
    return got;
}

typedef struct {
    int *v;
    Py_ssize_t n, cap;
} IVec;

static int iv_grow(IVec *a, Py_ssize_t need) {
    int *v = grow(a->v, &a->cap, need, sizeof(int));
    if (v == NULL) return -1;
    a->v = v;
    return 0;
}

static inline int iv_push(IVec *a, int x) {
    if (a->n == a->cap && iv_grow(a, a->n + 1) < 0) return -1;
    a->v[a->n++] = x;
    return 0;
}

static void iv_free(IVec *a) {
    PyMem_Free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

/* -- module state ------------------------------------------------------------------------- */

static PyTypeObject *NodeType = NULL; /* peirce.results.ProofNode */
static PyTypeObject *VarType = NULL, *ConstType = NULL, *LiteralType = NULL, *ClauseType = NULL;
static Py_ssize_t off_goal = -1, off_rule, off_clause, off_children; /* ProofNode's slots */
/* the slots of Clause (head, body, label), Literal (predicate, args, negated), Var (name) and
 * Const (value), read directly from objects of exactly those types */
static Py_ssize_t off_c_head, off_c_body, off_c_label, off_l_pred, off_l_args, off_l_neg,
    off_v_name, off_k_value;

static inline PyObject *field(PyObject *o, PyTypeObject *type, Py_ssize_t off, PyObject *name) {
    if (Py_TYPE(o) == type) {
        PyObject *v = *(PyObject **)((char *)o + off);
        if (v != NULL) {
            Py_INCREF(v);
            return v;
        }
    }
    return PyObject_GetAttr(o, name);
}

/* a clause's variables by name, numbered in order of appearance */
#define MAX_VARS 256
typedef struct {
    PyObject *names[MAX_VARS]; /* borrowed: the clause holds them */
    int n;
} Vars;

/* the variable's number; -1 on error, -2 when a clause has more than MAX_VARS */
static int var_number(Vars *vars, PyObject *name) {
    for (int i = 0; i < vars->n; i++) {
        if (vars->names[i] == name) return i;
        int eq = PyObject_RichCompareBool(vars->names[i], name, Py_EQ);
        if (eq < 0) return -1;
        if (eq) return i;
    }
    if (vars->n == MAX_VARS) return -2;
    vars->names[vars->n] = name;
    return vars->n++;
}
static PyObject *s_head, *s_body, *s_label, *s_args, *s_predicate, *s_negated, *s_name,
    *s_value, *s_sep, *s_if;

#define UNBOUND INT_MIN

/* -- the program -------------------------------------------------------------------------- */

/* A literal of a compiled clause lives in `code` at an offset: neg, pred, arity, then its
 * arguments (>= 0: a name's id; < 0: variable -(v + 1)). A ground literal of the store lives
 * in `data` the same way (names only). A relation (neg, pred, arity) has an id. */

typedef struct {
    PyObject *clause; /* borrowed: the program holds the clauses */
    int head;         /* offset in code */
    int body;         /* index of the first body literal's offset in boff */
    int nbody;
    int nvars, in_head, extra;
    int counted;  /* whether Python's derivation counts join steps for it (not proj, not same) */
    int ghead;    /* store index of the head of a rule without variables, else -1 */
    int gbody;    /* index in gbodies of its body literals' store indices */
    PyObject *label, *text; /* what its proof nodes say (made when first used) */
} Rule;

typedef struct {
    uint32_t hash;
    int off;   /* in data */
    int level; /* -1: not in the model */
    int rel;   /* relation id */
    int taken;
    int mark;  /* on the branch above (counted: nested copies of the ancestor set) */
    int gw;    /* first ground watch entry, -1 */
} Lit;

typedef struct {
    IVec heads; /* rules concluding it, in order */
    IVec watch; /* (rule, position) pairs of body literals of it, in order */
    IVec done;  /* literals taken so far, in order */
    int low;    /* the lowest level of its literals, -1 */
    int64_t key;
    uint32_t hash;
} Rel;

/* an open-addressing table of entry numbers + 1 (0: empty), kept at most half full */
typedef struct {
    int *slot;
    Py_ssize_t cap;
} Table;

typedef struct {
    PyObject_HEAD PyObject *clauses; /* the sequence, held */
    PyObject *ids;                   /* str -> int */
    PyObject *names;                 /* list: id -> str */
    IVec code, boff, gbodies;
    Rule *rules;
    Py_ssize_t nrules, caprules;
    IVec data;
    Lit *lits;
    Py_ssize_t nlits, caplits;
    Table lit_table;
    Rel *rels;
    Py_ssize_t nrels, caprels;
    Table rel_table;
    IVec gw_rule, gw_pos, gw_next;
    IVec queue;
    int contradicted;
    /* the search */
    long steps, max_steps;
    int depth; /* nested searches now (bounded: the C stack is) */
    int busy;  /* a search is under way (one entered meanwhile, from a finalizer run by the
                  garbage collector or from another thread, is left to the caller) */
    IVec cells, trail, keybuf;
} Program;

static PyTypeObject ProgramType;

static inline uint32_t mix(uint32_t h, uint32_t x) {
    h ^= x;
    h *= 16777619u;
    return h;
}

static uint32_t lit_hash(int neg, int pred, int arity, const int *args) {
    uint32_t h = 2166136261u;
    h = mix(h, (uint32_t)neg);
    h = mix(h, (uint32_t)pred);
    h = mix(h, (uint32_t)arity);
    for (int i = 0; i < arity; i++) h = mix(h, (uint32_t)args[i]);
    h ^= h >> 15;
    return h;
}

static int intern(Program *p, PyObject *s) {
    PyObject *got = PyDict_GetItemWithError(p->ids, s);
    if (got != NULL) return (int)PyLong_AsLong(got);
    if (PyErr_Occurred()) return -1;
    Py_ssize_t n = PyList_GET_SIZE(p->names);
    if (n >= INT_MAX / 2) {
        PyErr_SetString(PyExc_OverflowError, "too many names");
        return -1;
    }
    PyObject *id = PyLong_FromSsize_t(n);
    if (id == NULL) return -1;
    int rc = PyDict_SetItem(p->ids, s, id);
    Py_DECREF(id);
    if (rc < 0 || PyList_Append(p->names, s) < 0) return -1;
    return (int)n;
}

/* the id of a name the program has seen, -1 if none (-2: error) */
static int lookup(Program *p, PyObject *s) {
    PyObject *got = PyDict_GetItemWithError(p->ids, s);
    if (got != NULL) return (int)PyLong_AsLong(got);
    return PyErr_Occurred() ? -2 : -1;
}

/* -- tables --------------------------------------------------------------------------------- */

static inline void table_put(int *slot, Py_ssize_t cap, uint32_t hash, int value) {
    Py_ssize_t j = hash & (cap - 1);
    while (slot[j]) j = (j + 1) & (cap - 1);
    slot[j] = value;
}

/* entries 0..n-1 added, their hashes in `hashes` (one every `stride` bytes): the last one put in
 * the table, which is first made anew twice as large when it would be more than half full */
static int table_add(Table *t, const char *hashes, size_t stride, Py_ssize_t n) {
    if (n * 2 <= t->cap) {
        table_put(t->slot, t->cap, *(const uint32_t *)(hashes + (n - 1) * stride), (int)n);
        return 0;
    }
    Py_ssize_t cap = t->cap ? t->cap * 2 : 64;
    int *slot = PyMem_Calloc((size_t)cap, sizeof(int));
    if (slot == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        table_put(slot, cap, *(const uint32_t *)(hashes + i * stride), (int)i + 1);
    PyMem_Free(t->slot);
    t->slot = slot;
    t->cap = cap;
    return 0;
}

/* -- relations ---------------------------------------------------------------------------- */

static inline uint32_t rel_hash(int64_t key) {
    uint64_t h = (uint64_t)key;
    h ^= h >> 31;
    h *= 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return (uint32_t)h;
}

static inline int64_t rel_key(int neg, int pred, int arity) {
    return ((int64_t)pred << 33) | ((int64_t)arity << 1) | (neg ? 1 : 0);
}

/* the relation's id; -1 when absent and not made; -2 on error */
static int rel_get(Program *p, int neg, int pred, int arity, int make) {
    int64_t key = rel_key(neg, pred, arity);
    uint32_t hash = rel_hash(key);
    Table *t = &p->rel_table;
    if (t->cap) {
        for (Py_ssize_t j = hash & (t->cap - 1); t->slot[j]; j = (j + 1) & (t->cap - 1)) {
            int id = t->slot[j] - 1;
            if (p->rels[id].key == key) return id;
        }
    }
    if (!make) return -1;
    Rel *rels = grow(p->rels, &p->caprels, p->nrels + 1, sizeof(Rel));
    if (rels == NULL) return -2;
    p->rels = rels;
    Rel *r = &p->rels[p->nrels];
    memset(r, 0, sizeof(Rel));
    r->low = -1;
    r->key = key;
    r->hash = hash;
    p->nrels++;
    if (table_add(t, (const char *)&p->rels[0].hash, sizeof(Rel), p->nrels) < 0) return -2;
    return (int)p->nrels - 1;
}

/* -- the store of ground literals --------------------------------------------------------- */

/* the literal's index; -1 when absent (and not made); -2 on error */
static int store_get(Program *p, int neg, int pred, int arity, const int *args, int make) {
    uint32_t h = lit_hash(neg, pred, arity, args);
    Table *t = &p->lit_table;
    if (t->cap) {
        for (Py_ssize_t j = h & (t->cap - 1); t->slot[j]; j = (j + 1) & (t->cap - 1)) {
            int i = t->slot[j] - 1;
            int *d = p->data.v + p->lits[i].off;
            if (p->lits[i].hash == h && d[0] == neg && d[1] == pred && d[2] == arity &&
                memcmp(d + 3, args, (size_t)arity * sizeof(int)) == 0)
                return i;
        }
    }
    if (!make) return -1;
    int rel = rel_get(p, neg, pred, arity, 1);
    if (rel < 0) return -2;
    Lit *lits = grow(p->lits, &p->caplits, p->nlits + 1, sizeof(Lit));
    if (lits == NULL) return -2;
    p->lits = lits;
    if (iv_grow(&p->data, p->data.n + 3 + arity) < 0) return -2;
    int off = (int)p->data.n;
    p->data.v[off] = neg;
    p->data.v[off + 1] = pred;
    p->data.v[off + 2] = arity;
    if (arity) memcpy(p->data.v + off + 3, args, (size_t)arity * sizeof(int));
    p->data.n += 3 + arity;
    Lit *l = &p->lits[p->nlits];
    l->hash = h;
    l->off = off;
    l->level = -1;
    l->rel = rel;
    l->taken = 0;
    l->mark = 0;
    l->gw = -1;
    p->nlits++;
    if (table_add(t, (const char *)&p->lits[0].hash, sizeof(Lit), p->nlits) < 0) return -2;
    return (int)p->nlits - 1;
}

/* -- compiling a clause ------------------------------------------------------------------- */

/* 1: compiled; 0: not Datalog over names; 2: more variables than MAX_VARS; -1: error */
static int compile_literal(Program *p, PyObject *lit, Vars *vars, int in_body, int in_head,
                           IVec *bound, int *seen_count) {
    PyObject *pred = field(lit, LiteralType, off_l_pred, s_predicate);
    if (pred == NULL) return -1;
    if (!PyUnicode_Check(pred)) {
        Py_DECREF(pred);
        return 0;
    }
    if (PyUnicode_GET_LENGTH(pred) >= 2 && PyUnicode_READ_CHAR(pred, 0) == 'b' &&
        PyUnicode_READ_CHAR(pred, 1) == ':') {
        Py_DECREF(pred);
        return 0; /* a built-in's name */
    }
    PyObject *negated = field(lit, LiteralType, off_l_neg, s_negated);
    if (negated == NULL) {
        Py_DECREF(pred);
        return -1;
    }
    int neg = PyObject_IsTrue(negated);
    Py_DECREF(negated);
    int pid = neg < 0 ? -1 : intern(p, pred);
    Py_DECREF(pred);
    if (pid < 0) return -1;
    PyObject *args_obj = field(lit, LiteralType, off_l_args, s_args);
    if (args_obj == NULL) return -1;
    PyObject *args = PySequence_Fast(args_obj, "the arguments of a literal");
    Py_DECREF(args_obj);
    if (args == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(args);
    if (n > 65535) {
        Py_DECREF(args);
        return 0;
    }
    int rc = 1;
    if (iv_grow(&p->code, p->code.n + 3 + n) < 0) {
        rc = -1;
        goto done;
    }
    Py_ssize_t at = p->code.n;
    p->code.v[at] = neg;
    p->code.v[at + 1] = pid;
    p->code.v[at + 2] = (int)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PySequence_Fast_GET_ITEM(args, i);
        int code;
        if (Py_TYPE(t) == VarType) {
            PyObject *name = field(t, VarType, off_v_name, s_name);
            if (name == NULL) {
                rc = -1;
                goto done;
            }
            if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, "_") == 0) {
                Py_DECREF(name);
                rc = 0; /* anonymous: fresh at each occurrence */
                goto done;
            }
            int v = var_number(vars, name);
            Py_DECREF(name); /* (the Var holds it) */
            if (v < 0) {
                rc = v == -2 ? 2 : -1;
                goto done;
            }
            if (in_body && v < in_head && !bound->v[v]) {
                bound->v[v] = 1;
                (*seen_count)++;
            }
            code = -(v + 1);
        } else if (Py_TYPE(t) == ConstType) {
            PyObject *value = field(t, ConstType, off_k_value, s_value);
            if (value == NULL) {
                rc = -1;
                goto done;
            }
            if (!PyUnicode_CheckExact(value) ||
                PyUnicode_FindChar(value, 0, 0, PyUnicode_GET_LENGTH(value), 1) != -1) {
                Py_DECREF(value);
                rc = PyErr_Occurred() ? -1 : 0;
                goto done;
            }
            code = intern(p, value);
            Py_DECREF(value);
            if (code < 0) {
                rc = -1;
                goto done;
            }
        } else {
            rc = 0;
            goto done;
        }
        p->code.v[at + 3 + i] = code;
    }
    p->code.n += 3 + n;
done:
    Py_DECREF(args);
    return rc;
}

static int add_rule(Program *p, PyObject *clause, Vars *vars, int *joins) {
    PyObject *head = field(clause, ClauseType, off_c_head, s_head);
    if (head == NULL) return -1;
    PyObject *body_obj = field(clause, ClauseType, off_c_body, s_body);
    if (body_obj == NULL) {
        Py_DECREF(head);
        return -1;
    }
    PyObject *body = PySequence_Fast(body_obj, "the body of a clause");
    Py_DECREF(body_obj);
    if (body == NULL) {
        Py_DECREF(head);
        return -1;
    }
    IVec bound = {0};
    int rc;
    vars->n = 0;
    Py_ssize_t hoff = p->code.n;
    rc = compile_literal(p, head, vars, 0, 0, NULL, NULL);
    if (rc != 1) goto done;
    int in_head = vars->n;
    Py_ssize_t nbody = PySequence_Fast_GET_SIZE(body);
    if (in_head) {
        if (iv_grow(&bound, in_head) < 0) {
            rc = -1;
            goto done;
        }
        memset(bound.v, 0, (size_t)in_head * sizeof(int));
    }
    int seen = 0;
    Py_ssize_t first = p->boff.n;
    for (Py_ssize_t k = 0; k < nbody; k++) {
        Py_ssize_t off = p->code.n;
        rc = compile_literal(p, PySequence_Fast_GET_ITEM(body, k), vars, 1, in_head, &bound,
                             &seen);
        if (rc != 1) goto done;
        if (iv_push(&p->boff, (int)off) < 0) {
            rc = -1;
            goto done;
        }
    }
    if (seen != in_head) {
        rc = 0; /* a head variable the body does not bind (a fact with a variable too) */
        goto done;
    }
    int nvars = vars->n;
    Rule *rules = grow(p->rules, &p->caprules, p->nrules + 1, sizeof(Rule));
    if (rules == NULL) {
        rc = -1;
        goto done;
    }
    p->rules = rules;
    int index = (int)p->nrules;
    Rule *r = &p->rules[index];
    memset(r, 0, sizeof(Rule));
    r->clause = clause;
    r->head = (int)hoff;
    r->body = (int)first;
    r->nbody = (int)nbody;
    r->nvars = nvars;
    r->in_head = in_head;
    r->extra = nvars > in_head;
    r->ghead = -1;
    p->nrules++;
    int *h = p->code.v + hoff;
    int hrel = rel_get(p, h[0], h[1], h[2], 1);
    if (hrel < 0 || iv_push(&p->rels[hrel].heads, index) < 0) {
        rc = -1;
        goto done;
    }
    if (nbody == 0) { /* a fact: ground (a head variable needs a body) */
        int li = store_get(p, h[0], h[1], h[2], h + 3, 1);
        if (li < 0) {
            rc = -1;
            goto done;
        }
        if (p->lits[li].level < 0) {
            p->lits[li].level = 0;
            if (iv_push(&p->queue, li) < 0) rc = -1;
        }
        goto done;
    }
    /* Python counts the join steps of a rule it does not read the short way: one body
     * literal of distinct variables all in the head (proj), or h(X) :- a(X), .. (same) */
    int *b0 = p->code.v + p->boff.v[first];
    int proj = nbody == 1 && nvars == b0[2] && nvars == in_head;
    int same = h[2] == 1 && h[3] < 0;
    for (Py_ssize_t k = 0; same && k < nbody; k++) {
        int *b = p->code.v + p->boff.v[first + k];
        same = b[2] == 1 && b[3] == h[3];
    }
    r->counted = !(proj || same);
    if (nvars == 0) { /* no variable: fired by its ground body literals themselves */
        int hi = store_get(p, h[0], h[1], h[2], h + 3, 1);
        if (hi < 0) {
            rc = -1;
            goto done;
        }
        r = &p->rules[index];
        r->ghead = hi;
        r->gbody = (int)p->gbodies.n;
        for (Py_ssize_t k = 0; k < nbody; k++) {
            int *b = p->code.v + p->boff.v[first + k];
            int bi = store_get(p, b[0], b[1], b[2], b + 3, 1);
            if (bi < 0 || iv_push(&p->gbodies, bi) < 0) {
                rc = -1;
                goto done;
            }
        }
        for (Py_ssize_t k = 0; k < nbody; k++) {
            int bi = p->gbodies.v[p->rules[index].gbody + k];
            int e = (int)p->gw_rule.n;
            if (iv_push(&p->gw_rule, index) < 0 || iv_push(&p->gw_pos, (int)k) < 0 ||
                iv_push(&p->gw_next, -1) < 0) {
                rc = -1;
                goto done;
            }
            /* appended at the end of the literal's list, to keep Python's order */
            int *at = &p->lits[bi].gw;
            while (*at >= 0) at = &p->gw_next.v[*at];
            *at = e;
        }
        if (nbody > 1) *joins = 1;
        goto done;
    }
    for (Py_ssize_t k = 0; k < nbody; k++) {
        int *b = p->code.v + p->boff.v[first + k];
        int brel = rel_get(p, b[0], b[1], b[2], 1);
        if (brel < 0 || iv_push(&p->rels[brel].watch, index) < 0 ||
            iv_push(&p->rels[brel].watch, (int)k) < 0) {
            rc = -1;
            goto done;
        }
    }
    if (r->extra || nbody > 1) *joins = 1;
done:
    iv_free(&bound);
    Py_DECREF(body);
    Py_DECREF(head);
    return rc;
}

/* -- the least model ---------------------------------------------------------------------- */

/* whether the ground arguments match the pattern, binding its variables */
static inline int match(const int *pattern, const int *args, int arity, int *bind) {
    for (int i = 0; i < arity; i++) {
        int a = pattern[i];
        if (a >= 0) {
            if (a != args[i]) return 0;
        } else {
            int v = -a - 1;
            if (bind[v] == UNBOUND)
                bind[v] = args[i];
            else if (bind[v] != args[i])
                return 0;
        }
    }
    return 1;
}

/* a literal (code at `lit`) with its variables substituted from `bind` into `out` */
static inline void substitute(const int *lit, const int *bind, int *out) {
    for (int i = 0; i < lit[2]; i++) {
        int a = lit[3 + i];
        out[i] = a >= 0 ? a : bind[-a - 1];
    }
}

static int derive_head(Program *p, Rule *r, const int *bind, int up, int *scratch) {
    int *h = p->code.v + r->head;
    substitute(h, bind, scratch);
    int li = store_get(p, h[0], h[1], h[2], scratch, 1);
    if (li < 0) return -1;
    if (p->lits[li].level < 0) {
        p->lits[li].level = up;
        if (iv_push(&p->queue, li) < 0) return -1;
    }
    return 0;
}

/* 1: the model; 0: past max_facts; -1: error */
static int derive(Program *p, int joins, long max_facts) {
    long work = 0;
    IVec found = {0}, grown = {0};
    IVec scratch = {0};
    int rc = 1;
    for (Py_ssize_t qi = 0; qi < p->queue.n; qi++) {
        int L = p->queue.v[qi];
        Lit *l = &p->lits[L];
        int *d = p->data.v + l->off;
        int neg = d[0], pred = d[1], arity = d[2];
        int height = l->level, relid = l->rel;
        l->taken = 1;
        Rel *rel = &p->rels[relid];
        if (rel->low < 0) rel->low = height;
        if (iv_push(&rel->done, L) < 0) goto error;
        if (iv_grow(&scratch, arity + 1) < 0) goto error;
        memcpy(scratch.v, d + 3, (size_t)arity * sizeof(int));
        int comp = store_get(p, !neg, pred, arity, scratch.v, 0);
        if (comp >= 0 && p->lits[comp].level >= 0) p->contradicted = 1;
        int up = height + 1;
        for (int e = p->lits[L].gw; e >= 0; e = p->gw_next.v[e]) {
            Rule *r = &p->rules[p->gw_rule.v[e]];
            int pos = p->gw_pos.v[e];
            if (p->lits[r->ghead].level >= 0) continue;
            int ok = 1;
            for (int k = 0; ok && k < r->nbody; k++)
                if (k != pos && !p->lits[p->gbodies.v[r->gbody + k]].taken) ok = 0;
            if (ok) {
                p->lits[r->ghead].level = up;
                if (iv_push(&p->queue, r->ghead) < 0) goto error;
            }
        }
        Py_ssize_t nwatch = p->rels[relid].watch.n;
        for (Py_ssize_t w = 0; w < nwatch; w += 2) {
            Rule *r = &p->rules[p->rels[relid].watch.v[w]];
            int pos = p->rels[relid].watch.v[w + 1];
            int nv = r->nvars;
            int *blit = p->code.v + p->boff.v[r->body + pos];
            found.n = 0;
            if (iv_grow(&found, nv) < 0) goto error;
            for (int v = 0; v < nv; v++) found.v[v] = UNBOUND;
            if (!match(blit + 3, p->data.v + p->lits[L].off + 3, arity, found.v)) continue;
            found.n = nv;
            Py_ssize_t nfound = 1;
            /* the join with the literals taken so far, body literal by body literal */
            for (int k = 0; k < r->nbody && nfound; k++) {
                if (k == pos) continue;
                int *bl = p->code.v + p->boff.v[r->body + k];
                int bar = bl[2];
                if (iv_grow(&scratch, bar + 1) < 0) goto error;
                grown.n = 0;
                int brel = rel_get(p, bl[0], bl[1], bar, 0);
                for (Py_ssize_t f = 0; f < nfound; f++) {
                    int *b = found.v + f * nv;
                    if (r->counted) work++;
                    int whole = 1;
                    for (int i = 0; i < bar; i++) {
                        int a = bl[3 + i];
                        int val = a >= 0 ? a : b[-a - 1];
                        if (val == UNBOUND) whole = 0;
                        scratch.v[i] = val;
                    }
                    if (whole) {
                        int oi = store_get(p, bl[0], bl[1], bar, scratch.v, 0);
                        if (oi >= 0 && p->lits[oi].taken) {
                            if (iv_grow(&grown, grown.n + nv) < 0) goto error;
                            memcpy(grown.v + grown.n, b, (size_t)nv * sizeof(int));
                            grown.n += nv;
                        }
                        continue;
                    }
                    if (brel < 0) continue;
                    Py_ssize_t ndone = p->rels[brel].done.n;
                    for (Py_ssize_t o = 0; o < ndone; o++) {
                        int other = p->rels[brel].done.v[o];
                        if (r->counted) work++;
                        if (iv_grow(&grown, grown.n + nv) < 0) goto error;
                        int *trial = grown.v + grown.n;
                        b = found.v + f * nv;
                        memcpy(trial, b, (size_t)nv * sizeof(int));
                        if (match(bl + 3, p->data.v + p->lits[other].off + 3, bar, trial))
                            grown.n += nv;
                    }
                }
                IVec t = found;
                found = grown;
                grown = t;
                nfound = found.n / nv; /* (a rule watched has a variable: nv > 0) */
            }
            if (joins && work > max_facts) {
                rc = 0;
                goto out;
            }
            Rule *rr = &p->rules[p->rels[relid].watch.v[w]];
            int har = p->code.v[rr->head + 2];
            if (iv_grow(&scratch, har + 1) < 0) goto error;
            for (Py_ssize_t f = 0; f < nfound; f++)
                if (derive_head(p, rr, found.v + f * nv, up, scratch.v) < 0) goto error;
        }
        if (joins && p->queue.n > max_facts) {
            rc = 0;
            goto out;
        }
    }
    goto out;
error:
    rc = -1;
out:
    iv_free(&found);
    iv_free(&grown);
    iv_free(&scratch);
    return rc;
}

/* -- text ----------------------------------------------------------------------------------- */

/* a literal (neg, pred, arity, then its arguments, as in `code` and `data`) as text,
 * "¬pred(a, b)": an argument >= 0 is a name, < 0 a variable, named by `varnames` */
static PyObject *literal_text(Program *p, const int *lit, PyObject *varnames) {
    int arity = lit[2];
    PyObject *name = PyList_GET_ITEM(p->names, lit[1]);
    const char *sign = lit[0] ? "\xc2\xac" : "";
    if (arity == 0) return PyUnicode_FromFormat("%s%U", sign, name);
#define TERM(a) ((a) >= 0 ? PyList_GET_ITEM(p->names, (a)) : PyList_GET_ITEM(varnames, -(a)-1))
    if (arity == 1) return PyUnicode_FromFormat("%s%U(%U)", sign, name, TERM(lit[3]));
    PyObject *parts = PyTuple_New(arity);
    if (parts == NULL) return NULL;
    for (int i = 0; i < arity; i++) {
        PyObject *t = TERM(lit[3 + i]);
        Py_INCREF(t);
        PyTuple_SET_ITEM(parts, i, t);
    }
#undef TERM
    PyObject *inner = PyUnicode_Join(s_sep, parts);
    Py_DECREF(parts);
    if (inner == NULL) return NULL;
    PyObject *out = PyUnicode_FromFormat("%s%U(%U)", sign, name, inner);
    Py_DECREF(inner);
    return out;
}

/* the names of a clause's variables, in order of appearance (head, then body) */
static PyObject *variable_names(PyObject *clause) {
    PyObject *order = PyDict_New();
    if (order == NULL) return NULL;
    PyObject *head = PyObject_GetAttr(clause, s_head);
    PyObject *body = head ? PyObject_GetAttr(clause, s_body) : NULL;
    PyObject *lits = NULL, *out = NULL;
    if (body == NULL) goto done;
    lits = PySequence_List(body);
    if (lits == NULL || PyList_Insert(lits, 0, head) < 0) goto done;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(lits); k++) {
        PyObject *args = PyObject_GetAttr(PyList_GET_ITEM(lits, k), s_args);
        if (args == NULL) goto done;
        PyObject *seq = PySequence_Fast(args, "arguments");
        Py_DECREF(args);
        if (seq == NULL) goto done;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
            PyObject *t = PySequence_Fast_GET_ITEM(seq, i);
            if (Py_TYPE(t) != VarType) continue;
            PyObject *name = PyObject_GetAttr(t, s_name);
            if (name == NULL || PyDict_SetItem(order, name, Py_None) < 0) {
                Py_XDECREF(name);
                Py_DECREF(seq);
                goto done;
            }
            Py_DECREF(name);
        }
        Py_DECREF(seq);
    }
    out = PyDict_Keys(order);
done:
    Py_XDECREF(lits);
    Py_XDECREF(body);
    Py_XDECREF(head);
    Py_DECREF(order);
    return out;
}

/* the rule's label (its clause's label, else its text) and text, made once */
static int rule_texts(Program *p, Rule *r) {
    if (r->text != NULL) return 0;
    PyObject *varnames = NULL;
    if (r->nvars) {
        varnames = variable_names(r->clause);
        if (varnames == NULL) return -1;
    }
    PyObject *text = literal_text(p, p->code.v + r->head, varnames);
    if (text != NULL && r->nbody) {
        PyObject *parts = PyTuple_New(r->nbody);
        if (parts == NULL) {
            Py_CLEAR(text);
        } else {
            for (int k = 0; k < r->nbody; k++) {
                PyObject *t = literal_text(p, p->code.v + p->boff.v[r->body + k], varnames);
                if (t == NULL) {
                    Py_CLEAR(parts);
                    break;
                }
                PyTuple_SET_ITEM(parts, k, t);
            }
            PyObject *joined = parts ? PyUnicode_Join(s_sep, parts) : NULL;
            Py_XDECREF(parts);
            PyObject *whole = joined ? PyUnicode_FromFormat("%U%U%U", text, s_if, joined) : NULL;
            Py_XDECREF(joined);
            Py_SETREF(text, whole);
        }
    }
    Py_XDECREF(varnames);
    if (text == NULL) return -1;
    PyObject *label = field(r->clause, ClauseType, off_c_label, s_label);
    if (label == NULL) {
        Py_DECREF(text);
        return -1;
    }
    int truth = PyObject_IsTrue(label);
    if (truth < 0) {
        Py_DECREF(label);
        Py_DECREF(text);
        return -1;
    }
    if (!truth) {
        Py_DECREF(label);
        Py_INCREF(text);
        label = text;
    }
    r->label = label;
    r->text = text;
    return 0;
}

/* a ProofNode of the goal (its text), the rule and the children (stolen) */
static PyObject *make_node(Program *p, PyObject *goal, int rule, PyObject *kids) {
    Rule *r = &p->rules[rule];
    if (rule_texts(p, r) < 0) {
        Py_DECREF(goal);
        Py_DECREF(kids);
        return NULL;
    }
    PyObject *node = NodeType->tp_alloc(NodeType, 0);
    if (node == NULL) {
        Py_DECREF(goal);
        Py_DECREF(kids);
        return NULL;
    }
    Py_INCREF(r->label);
    Py_INCREF(r->text);
    *(PyObject **)((char *)node + off_goal) = goal;
    *(PyObject **)((char *)node + off_rule) = r->label;
    *(PyObject **)((char *)node + off_clause) = r->text;
    *(PyObject **)((char *)node + off_children) = kids;
    /* A proof is a tree made here, bottom up, of immutable nodes: it holds no cycle, so the
     * cyclic garbage collector need not walk it (a batch keeps thousands of them, and every
     * full collection walked them all). Its tuple of children holds only such nodes. */
    if (PyObject_GC_IsTracked(node)) PyObject_GC_UnTrack(node);
    if (PyObject_GC_IsTracked(kids)) PyObject_GC_UnTrack(kids);
    return node;
}

/* -- the replay of Prolog's search -------------------------------------------------------- */

/* results of the searches: */
#define FOUND 1
#define NONE 0
#define ERROR (-1)
#define EXHAUSTED (-2)

static int prove(Program *p, int L, int room, PyObject **out);

/* the node of the ground literal L proved by the rule with the children `kids` (stolen) */
static int proved(Program *p, int L, int rule, PyObject *kids, PyObject **out) {
    PyObject *goal = literal_text(p, p->data.v + p->lits[L].off, NULL);
    if (goal == NULL) {
        Py_DECREF(kids);
        return ERROR;
    }
    *out = make_node(p, goal, rule, kids);
    return *out ? FOUND : ERROR;
}

/* a clause's ground body literals (store indices), each proved in turn */
static int prove_body(Program *p, int L, int rule, const int *body, int n, int room,
                      PyObject **out) {
    PyObject *kids = PyTuple_New(n);
    if (kids == NULL) return ERROR;
    p->lits[L].mark++;
    for (int k = 0; k < n; k++) {
        PyObject *kid;
        int rc = prove(p, body[k], room, &kid);
        if (rc != FOUND) {
            p->lits[L].mark--;
            Py_DECREF(kids);
            return rc;
        }
        PyTuple_SET_ITEM(kids, k, kid);
    }
    p->lits[L].mark--;
    return proved(p, L, rule, kids, out);
}

static int solve_body(Program *p, Rule *r, int *bind, int room, PyObject **kids);

/* nested searches (proofs and goals) before a search is left to the caller, as one past its
 * steps is: a few hundred bytes of C stack each */
#define MAX_NESTING 2000

static int prove_here(Program *p, int L, int room, PyObject **out);

static int prove(Program *p, int L, int room, PyObject **out) {
    if (p->depth >= MAX_NESTING) return EXHAUSTED;
    p->depth++;
    int rc = prove_here(p, L, room, out);
    p->depth--;
    return rc;
}

static int prove_here(Program *p, int L, int room, PyObject **out) {
    int height = p->lits[L].level;
    if (height < 0 || height > room) return NONE; /* no derivation fits */
    if (p->lits[L].mark > 0) return NONE;         /* the ancestor check */
    if (++p->steps > p->max_steps) return EXHAUSTED;
    int below = room - 1;
    Rel *rel = &p->rels[p->lits[L].rel];
    Py_ssize_t nheads = rel->heads.n;
    int small_bind[16], small_body[16];
    for (Py_ssize_t hi = 0; hi < nheads; hi++) {
        int ri = p->rels[p->lits[L].rel].heads.v[hi];
        Rule *r = &p->rules[ri];
        int nv = r->nvars, nb = r->nbody;
        int *bind = nv <= 16 ? small_bind : PyMem_Malloc((size_t)nv * sizeof(int));
        int *body = nb <= 16 ? small_body : PyMem_Malloc((size_t)nb * sizeof(int));
        int rc = NONE;
        if (bind == NULL || body == NULL) {
            PyErr_NoMemory();
            rc = ERROR;
            goto next;
        }
        for (int v = 0; v < nv; v++) bind[v] = UNBOUND;
        int *h = p->code.v + r->head;
        if (!match(h + 3, p->data.v + p->lits[L].off + 3, h[2], bind)) goto next;
        if (r->extra) {
            PyObject *kids = NULL;
            p->lits[L].mark++;
            rc = solve_body(p, r, bind, below, &kids);
            p->lits[L].mark--;
            if (rc == FOUND) rc = proved(p, L, ri, kids, out);
            goto next;
        }
        int fits = 1;
        for (int k = 0; k < nb && fits; k++) {
            int *bl = p->code.v + p->boff.v[r->body + k];
            if (iv_grow(&p->keybuf, bl[2] + 1) < 0) {
                rc = ERROR;
                goto next;
            }
            substitute(bl, bind, p->keybuf.v);
            int bi = store_get(p, bl[0], bl[1], bl[2], p->keybuf.v, 0);
            if (bi < 0 || p->lits[bi].level < 0 || p->lits[bi].level > below)
                fits = 0; /* this body cannot be proved within the bound */
            else
                body[k] = bi;
        }
        if (fits) rc = prove_body(p, L, ri, body, nb, below, out);
    next:
        if (bind != small_bind) PyMem_Free(bind);
        if (body != small_body) PyMem_Free(body);
        if (rc != NONE) return rc;
    }
    return NONE;
}

/* Goals with variables: Prolog's resolution with backtracking, in continuation-passing style.
 * A term is a name id (>= 0) or a cell -(c + 1); a cell holds UNBOUND or a term. */

static inline int deref(Program *p, int t) {
    while (t < 0) {
        int v = p->cells.v[-t - 1];
        if (v == UNBOUND) return t;
        t = v;
    }
    return t;
}

static int unify(Program *p, int a, int b) {
    a = deref(p, a);
    b = deref(p, b);
    if (a == b) return 1;
    if (a < 0) {
        p->cells.v[-a - 1] = b;
        return iv_push(&p->trail, -a - 1) < 0 ? -1 : 1;
    }
    if (b < 0) {
        p->cells.v[-b - 1] = a;
        return iv_push(&p->trail, -b - 1) < 0 ? -1 : 1;
    }
    return 0;
}

static void undo(Program *p, Py_ssize_t mark) {
    while (p->trail.n > mark) p->cells.v[p->trail.v[--p->trail.n]] = UNBOUND;
}

typedef struct Path {
    const int *goal; /* neg, pred, arity, terms */
    const struct Path *up;
} Path;

typedef struct Cont {
    /* a solution of a goal (its node, borrowed; NULL for the end of a conjunction):
     * FOUND to stop here (accepted), NONE to look for the next, or an error */
    int (*fn)(Program *p, struct Cont *self, PyObject *node);
} Cont;

/* goals: an array of offsets into `goals_code` (neg, pred, arity, terms) */
typedef struct {
    const int *code;
    const int *offs;
    int n;
} Goals;

static int solve(Program *p, const int *goal, int room, const Path *path, Cont *k);

typedef struct {
    Cont base;
    const Goals *goals;
    int at, room;
    const Path *path;
    PyObject **kids;
    Cont *done;
} ConjCont;

static int conjoin(Program *p, const Goals *g, int at, int room, const Path *path, PyObject **kids,
                Cont *done);

static int conj_next(Program *p, Cont *self, PyObject *node) {
    ConjCont *c = (ConjCont *)self;
    c->kids[c->at] = node;
    int rc = conjoin(p, c->goals, c->at + 1, c->room, c->path, c->kids, c->done);
    c->kids[c->at] = NULL;
    return rc;
}

static int conjoin(Program *p, const Goals *g, int at, int room, const Path *path, PyObject **kids,
                Cont *done) {
    if (at == g->n) return done->fn(p, done, NULL);
    ConjCont c = {{conj_next}, g, at, room, path, kids, done};
    return solve(p, g->code + g->offs[at], room, path, &c.base);
}

/* the kids of a solved conjunction, as a tuple */
static PyObject *kids_tuple(PyObject **kids, int n) {
    PyObject *t = PyTuple_New(n);
    if (t == NULL) return NULL;
    for (int i = 0; i < n; i++) {
        Py_INCREF(kids[i]);
        PyTuple_SET_ITEM(t, i, kids[i]);
    }
    return t;
}

typedef struct {
    Cont base;
    PyObject **kids;
    int n;
    PyObject *result;
} TopCont;

static int top_accept(Program *p, Cont *self, PyObject *node) {
    TopCont *c = (TopCont *)self;
    c->result = kids_tuple(c->kids, c->n);
    return c->result ? FOUND : ERROR;
}

/* a rule's body as goals over cells from `base` (its variables') */
static int *body_goals(Program *p, Rule *r, int base, int **offs_out) {
    Py_ssize_t size = 0;
    for (int k = 0; k < r->nbody; k++) size += 3 + p->code.v[p->boff.v[r->body + k] + 2];
    int *code = PyMem_Malloc((size_t)(size + 1) * sizeof(int));
    int *offs = PyMem_Malloc((size_t)(r->nbody + 1) * sizeof(int));
    if (code == NULL || offs == NULL) {
        PyMem_Free(code);
        PyMem_Free(offs);
        PyErr_NoMemory();
        return NULL;
    }
    int at = 0;
    for (int k = 0; k < r->nbody; k++) {
        int *bl = p->code.v + p->boff.v[r->body + k];
        offs[k] = at;
        code[at] = bl[0];
        code[at + 1] = bl[1];
        code[at + 2] = bl[2];
        for (int i = 0; i < bl[2]; i++) {
            int a = bl[3 + i];
            code[at + 3 + i] = a >= 0 ? a : -(base + (-a - 1) + 1);
        }
        at += 3 + bl[2];
    }
    *offs_out = offs;
    return code;
}

/* the first solution of a body with variables the head does not bind (`bind`: the head's), as
 * Prolog's search finds it; the bindings are undone after */
static int solve_body(Program *p, Rule *r, int *bind, int room, PyObject **kids_out) {
    Py_ssize_t base = p->cells.n;
    if (iv_grow(&p->cells, base + r->nvars) < 0) return ERROR;
    for (int v = 0; v < r->nvars; v++) p->cells.v[base + v] = bind[v];
    p->cells.n = base + r->nvars;
    Py_ssize_t mark = p->trail.n;
    int *offs = NULL;
    int *code = body_goals(p, r, (int)base, &offs);
    if (code == NULL) {
        p->cells.n = base;
        return ERROR;
    }
    PyObject **kids = PyMem_Calloc((size_t)r->nbody + 1, sizeof(PyObject *));
    int rc = ERROR;
    if (kids != NULL) {
        Goals g = {code, offs, r->nbody};
        TopCont top = {{top_accept}, kids, r->nbody, NULL};
        rc = conjoin(p, &g, 0, room, NULL, kids, &top.base);
        if (rc == FOUND) *kids_out = top.result;
    } else {
        PyErr_NoMemory();
    }
    PyMem_Free(kids);
    PyMem_Free(code);
    PyMem_Free(offs);
    undo(p, mark);
    p->cells.n = base;
    return rc;
}

typedef struct {
    Cont base;
    const int *goal; /* its terms, bound by the body's solution */
    int rule;
    PyObject **kids;
    int n;
    Cont *up;
} SolvedCont;

/* The goal (neg, pred, arity, terms) with its terms as they are bound now, into `out`, laid out
 * as a literal; whether every term is a name. `out` is `small` (of SMALL ints) when the goal
 * fits, else taken from the heap (NULL, with MemoryError, when memory ran out): free it with
 * `release`. */
#define SMALL 19
static int *bound_now(Program *p, const int *goal, int *small, int *ground) {
    int arity = goal[2];
    int *out = 3 + arity <= SMALL ? small : PyMem_Malloc((size_t)(3 + arity) * sizeof(int));
    if (out == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    out[0] = goal[0];
    out[1] = goal[1];
    out[2] = arity;
    *ground = 1;
    for (int i = 0; i < arity; i++) {
        out[3 + i] = deref(p, goal[3 + i]);
        if (out[3 + i] < 0) *ground = 0;
    }
    return out;
}

static inline void release(int *buffer, int *small) {
    if (buffer != small) PyMem_Free(buffer);
}

static int solved(Program *p, Cont *self, PyObject *unused) {
    SolvedCont *c = (SolvedCont *)self;
    int small[SMALL], ground;
    int *now = bound_now(p, c->goal, small, &ground);
    if (now == NULL) return ERROR;
    if (!ground) {
        release(now, small);
        PyErr_SetString(PyExc_RuntimeError, "a solved goal left a variable unbound");
        return ERROR;
    }
    PyObject *text = literal_text(p, now, NULL);
    release(now, small);
    if (text == NULL) return ERROR;
    PyObject *kids = kids_tuple(c->kids, c->n);
    if (kids == NULL) {
        Py_DECREF(text);
        return ERROR;
    }
    PyObject *node = make_node(p, text, c->rule, kids);
    if (node == NULL) return ERROR;
    int rc = c->up->fn(p, c->up, node);
    Py_DECREF(node);
    return rc;
}

/* counts (up, +1) or uncounts (-1) the ground goals of the path as ancestors */
static int mark_path(Program *p, const Path *path, int by) {
    for (const Path *q = path; q != NULL; q = q->up) {
        int small[SMALL], ground;
        int *now = bound_now(p, q->goal, small, &ground);
        if (now == NULL) return -1;
        if (ground) {
            int li = store_get(p, now[0], now[1], now[2], now + 3, 0);
            if (li >= 0) p->lits[li].mark += by;
        }
        release(now, small);
    }
    return 0;
}

static int solve_here(Program *p, const int *goal, int room, const Path *path, Cont *k);

static int solve(Program *p, const int *goal, int room, const Path *path, Cont *k) {
    if (p->depth >= MAX_NESTING) return EXHAUSTED;
    p->depth++;
    int rc = solve_here(p, goal, room, path, k);
    p->depth--;
    return rc;
}

static int solve_here(Program *p, const int *goal, int room, const Path *path, Cont *k) {
    if (room < 0) return NONE;
    int neg = goal[0], pred = goal[1], arity = goal[2];
    /* the goal as it is bound now (and so as the path below holds it) */
    int small[SMALL], ground;
    int *now = bound_now(p, goal, small, &ground);
    if (now == NULL) return ERROR;
    int rc = NONE;
    if (ground) {
        int li = store_get(p, neg, pred, arity, now + 3, 0);
        if (li >= 0) {
            /* the ancestors: those above the body, and the goals of the path as bound now */
            PyObject *node = NULL;
            if (mark_path(p, path, 1) < 0) {
                rc = ERROR;
                goto out;
            }
            rc = prove(p, li, room, &node);
            if (mark_path(p, path, -1) < 0 && rc != ERROR) {
                Py_XDECREF(node);
                rc = ERROR;
            }
            if (rc == FOUND) {
                /* other proofs of a ground goal bind nothing: Prolog's retries fail */
                rc = k->fn(p, k, node);
                Py_DECREF(node);
            }
        }
        goto out;
    }
    int relid = rel_get(p, neg, pred, arity, 0);
    if (relid < 0 || p->rels[relid].low < 0 || p->rels[relid].low > room) goto out;
    if (++p->steps > p->max_steps) {
        rc = EXHAUSTED;
        goto out;
    }
    Path step = {now, path};
    Py_ssize_t nheads = p->rels[relid].heads.n;
    for (Py_ssize_t hi = 0; hi < nheads && rc == NONE; hi++) {
        int ri = p->rels[relid].heads.v[hi];
        Rule *r = &p->rules[ri];
        Py_ssize_t base = p->cells.n;
        if (iv_grow(&p->cells, base + r->nvars) < 0) {
            rc = ERROR;
            break;
        }
        for (int v = 0; v < r->nvars; v++) p->cells.v[base + v] = UNBOUND;
        p->cells.n = base + r->nvars;
        Py_ssize_t mark = p->trail.n;
        int *h = p->code.v + r->head;
        int ok = 1;
        for (int i = 0; i < arity && ok == 1; i++) {
            int ht = h[3 + i];
            ok = unify(p, now[3 + i], ht >= 0 ? ht : -((int)base + (-ht - 1) + 1));
        }
        if (ok < 0) {
            rc = ERROR;
        } else if (ok) {
            int *offs = NULL;
            int *code = body_goals(p, r, (int)base, &offs);
            PyObject **kids = code ? PyMem_Calloc((size_t)r->nbody + 1, sizeof(PyObject *)) : NULL;
            if (kids == NULL) {
                if (code != NULL) PyErr_NoMemory();
                rc = ERROR;
            } else {
                Goals g = {code, offs, r->nbody};
                SolvedCont s = {{solved}, now, ri, kids, r->nbody, k};
                rc = conjoin(p, &g, 0, room - 1, &step, kids, &s.base);
            }
            PyMem_Free(kids);
            PyMem_Free(code);
            PyMem_Free(offs);
        }
        undo(p, mark);
        p->cells.n = base;
    }
out:
    release(now, small);
    return rc;
}

/* -- the Python face ---------------------------------------------------------------------- */

static void program_dealloc(Program *p) {
    for (Py_ssize_t i = 0; i < p->nrules; i++) {
        Py_XDECREF(p->rules[i].label);
        Py_XDECREF(p->rules[i].text);
    }
    PyMem_Free(p->rules);
    for (Py_ssize_t i = 0; i < p->nrels; i++) {
        iv_free(&p->rels[i].heads);
        iv_free(&p->rels[i].watch);
        iv_free(&p->rels[i].done);
    }
    PyMem_Free(p->rels);
    PyMem_Free(p->rel_table.slot);
    PyMem_Free(p->lits);
    PyMem_Free(p->lit_table.slot);
    iv_free(&p->code);
    iv_free(&p->boff);
    iv_free(&p->gbodies);
    iv_free(&p->data);
    iv_free(&p->gw_rule);
    iv_free(&p->gw_pos);
    iv_free(&p->gw_next);
    iv_free(&p->queue);
    iv_free(&p->cells);
    iv_free(&p->trail);
    iv_free(&p->keybuf);
    Py_XDECREF(p->clauses);
    Py_XDECREF(p->ids);
    Py_XDECREF(p->names);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

/* the ground literal (neg, key = (pred, name, ...)): its index, -1 when the program has no
 * such literal, -3 when it has no clause concluding the relation, -2 on error */
static int find_goal(Program *p, int neg, PyObject *key) {
    if (!PyTuple_Check(key) || PyTuple_GET_SIZE(key) < 1) {
        PyErr_SetString(PyExc_TypeError, "a key is a tuple (predicate, name, ...)");
        return -2;
    }
    Py_ssize_t arity = PyTuple_GET_SIZE(key) - 1;
    int pred = lookup(p, PyTuple_GET_ITEM(key, 0));
    if (pred == -2) return -2;
    int rel = pred < 0 || arity > 65535 ? -1 : rel_get(p, neg, pred, (int)arity, 0);
    if (rel == -2) return -2;
    if (rel < 0 || p->rels[rel].heads.n == 0) return -3;
    if (iv_grow(&p->keybuf, arity + 1) < 0) return -2;
    for (Py_ssize_t i = 0; i < arity; i++) {
        int a = lookup(p, PyTuple_GET_ITEM(key, i + 1));
        if (a < 0) return a; /* -2: an error; -1: a name the program never uses */
        p->keybuf.v[i] = a;
    }
    return store_get(p, neg, pred, (int)arity, p->keybuf.v, 0);
}

static PyObject *s_none, *s_unproved;

/* the ProofNode of the ground goal that Prolog's search finds; "none" when no clause concludes
 * its relation, "unproved" when the model does not hold it; None when this program cannot say
 * (a depth limit, a bound past max_bound, a search past max_steps) */
static PyObject *attempt_one(Program *p, int neg, PyObject *key, long maxd, long max_bound,
                             long max_steps) {
    int L = find_goal(p, neg, key);
    if (L == -2) return NULL;
    if (L == -3) return Py_NewRef(s_none);
    if (L == -1 || p->lits[L].level < 0) return Py_NewRef(s_unproved);
    long height = p->lits[L].level;
    /* kb/meta.pl's iterative deepening: bounds 1..16, then doubling, capped at the limit */
    long bound = 1;
    while (bound <= height) {
        if (bound >= maxd) Py_RETURN_NONE; /* the depth limit stops it first */
        bound = bound < 16 ? bound + 1 : bound * 2;
        if (bound > maxd) bound = maxd;
    }
    if (bound > max_bound) Py_RETURN_NONE; /* a search too deep to replay */
    if (p->busy) Py_RETURN_NONE;
    p->busy = 1;
    p->steps = 0;
    p->max_steps = max_steps;
    PyObject *node = NULL;
    int rc = prove(p, L, (int)bound - 1, &node);
    p->cells.n = 0;
    p->trail.n = 0;
    p->busy = 0;
    if (rc == ERROR) return NULL;
    if (rc == FOUND) return node;
    Py_RETURN_NONE; /* past max_steps (or, which cannot happen, no proof within the bound) */
}

/* the arguments (neg, key, depth, max_bound, max_steps) of attempt and ask, read into what
 * attempt_one takes; -1 (with TypeError naming `usage`) when they are not those */
static int query_of(PyObject *const *args, Py_ssize_t nargs, const char *usage, int *neg,
                    long *maxd, long *max_bound, long *max_steps) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, usage);
        return -1;
    }
    *neg = PyObject_IsTrue(args[0]);
    *maxd = PyLong_AsLong(args[2]);
    *max_bound = PyLong_AsLong(args[3]);
    *max_steps = PyLong_AsLong(args[4]);
    return *neg < 0 || PyErr_Occurred() ? -1 : 0;
}

/* attempt(neg, key, depth, max_bound, max_steps): attempt_one */
static PyObject *program_attempt(Program *p, PyObject *const *args, Py_ssize_t nargs) {
    int neg;
    long maxd, max_bound, max_steps;
    if (query_of(args, nargs, "attempt(neg, key, depth, max_bound, max_steps)", &neg, &maxd,
                 &max_bound, &max_steps) < 0)
        return NULL;
    return attempt_one(p, neg, args[1], maxd, max_bound, max_steps);
}

/* ask(neg, key, depth, max_bound, max_steps): the attempts at the goal and at its complement */
static PyObject *program_ask(Program *p, PyObject *const *args, Py_ssize_t nargs) {
    int neg;
    long maxd, max_bound, max_steps;
    if (query_of(args, nargs, "ask(neg, key, depth, max_bound, max_steps)", &neg, &maxd,
                 &max_bound, &max_steps) < 0)
        return NULL;
    PyObject *yes = attempt_one(p, neg, args[1], maxd, max_bound, max_steps);
    if (yes == NULL) return NULL;
    PyObject *no = attempt_one(p, !neg, args[1], maxd, max_bound, max_steps);
    if (no == NULL) {
        Py_DECREF(yes);
        return NULL;
    }
    PyObject *both = PyTuple_Pack(2, yes, no);
    Py_DECREF(yes);
    Py_DECREF(no);
    return both;
}

static PyObject *program_holds(Program *p, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "holds(neg, key)");
        return NULL;
    }
    int neg = PyObject_IsTrue(args[0]);
    if (neg < 0) return NULL;
    int L = find_goal(p, neg, args[1]);
    if (L == -2) return NULL;
    return PyBool_FromLong(L >= 0 && p->lits[L].level >= 0);
}

static PyMethodDef program_methods[] = {
    {"attempt", (PyCFunction)(void (*)(void))program_attempt, METH_FASTCALL,
     "attempt(neg, key, depth, max_bound, max_steps)"},
    {"ask", (PyCFunction)(void (*)(void))program_ask, METH_FASTCALL,
     "ask(neg, key, depth, max_bound, max_steps): the attempts at the goal and its complement"},
    {"holds", (PyCFunction)(void (*)(void))program_holds, METH_FASTCALL, "holds(neg, key)"},
    {NULL, NULL, 0, NULL},
};

static PyObject *program_contradicted(Program *p, void *unused) {
    return PyBool_FromLong(p->contradicted);
}

static PyGetSetDef program_getset[] = {
    {"contradicted", (getter)program_contradicted, NULL, "a literal and its complement hold", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ProgramType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "peirce.engine._ground.Program",
    .tp_basicsize = sizeof(Program),
    .tp_dealloc = (destructor)program_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A Datalog context's least model, compiled (see peirce.engine.ground_ask).",
    .tp_methods = program_methods,
    .tp_getset = program_getset,
};

/* build(clauses, max_facts) */
static PyObject *build(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "build(clauses, max_facts)");
        return NULL;
    }
    if (NodeType == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup() was not called");
        return NULL;
    }
    long max_facts = PyLong_AsLong(args[1]);
    if (max_facts == -1 && PyErr_Occurred()) return NULL;
    PyObject *clauses = PySequence_Tuple(args[0]); /* held: a list could change */
    if (clauses == NULL) return NULL;
    Program *p = PyObject_New(Program, &ProgramType);
    if (p == NULL) {
        Py_DECREF(clauses);
        return NULL;
    }
    memset((char *)p + sizeof(PyObject), 0, sizeof(Program) - sizeof(PyObject));
    p->clauses = clauses;
    p->ids = PyDict_New();
    p->names = PyList_New(0);
    if (p->ids == NULL || p->names == NULL) goto error;
    Vars vars;
    int joins = 0;
    Py_ssize_t n = PyTuple_GET_SIZE(clauses);
    for (Py_ssize_t i = 0; i < n; i++) {
        int rc = add_rule(p, PyTuple_GET_ITEM(clauses, i), &vars, &joins);
        if (rc < 0) goto error;
        if (rc == 0) goto none;
        if (rc == 2) { /* a clause of more than MAX_VARS variables: the Python reads it */
            Py_DECREF(p);
            Py_RETURN_NOTIMPLEMENTED;
        }
    }
    int rc = derive(p, joins, max_facts);
    if (rc < 0) goto error;
    if (rc == 0) goto none;
    return (PyObject *)p;
none:
    Py_DECREF(p);
    Py_RETURN_NONE;
error:
    Py_DECREF(p);
    return NULL;
}

static Py_ssize_t slot_offset(PyObject *type, const char *name) {
    PyObject *d = PyObject_GetAttrString(type, name);
    if (d == NULL) return -1;
    Py_ssize_t off = -1;
    if (Py_IS_TYPE(d, &PyMemberDescr_Type)) {
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type == T_OBJECT_EX || m->type == T_OBJECT) off = m->offset;
    }
    Py_DECREF(d);
    if (off < 0) PyErr_Format(PyExc_TypeError, "%s is not a slot", name);
    return off;
}

/* setup(ProofNode, Var, Const, Literal, Clause) */
static PyObject *setup(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "setup(ProofNode, Var, Const, Literal, Clause)");
        return NULL;
    }
    for (int i = 0; i < 5; i++)
        if (!PyType_Check(args[i])) {
            PyErr_SetString(PyExc_TypeError, "setup(ProofNode, Var, Const, Literal, Clause)");
            return NULL;
        }
    Py_ssize_t o[12];
    const char *names[12] = {"goal", "rule", "clause", "children", "name", "value",
                             "predicate", "args", "negated", "head", "body", "label"};
    const int owner[12] = {0, 0, 0, 0, 1, 2, 3, 3, 3, 4, 4, 4};
    for (int i = 0; i < 12; i++)
        if ((o[i] = slot_offset(args[owner[i]], names[i])) < 0) return NULL;
    off_goal = o[0];
    off_rule = o[1];
    off_clause = o[2];
    off_children = o[3];
    off_v_name = o[4];
    off_k_value = o[5];
    off_l_pred = o[6];
    off_l_args = o[7];
    off_l_neg = o[8];
    off_c_head = o[9];
    off_c_body = o[10];
    off_c_label = o[11];
    PyTypeObject **types[5] = {&NodeType, &VarType, &ConstType, &LiteralType, &ClauseType};
    for (int i = 0; i < 5; i++) {
        Py_INCREF(args[i]);
        Py_XSETREF(*types[i], (PyTypeObject *)args[i]);
    }
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"build", (PyCFunction)(void (*)(void))build, METH_FASTCALL,
     "build(clauses, max_facts): the program of Datalog clauses over names with its least "
     "model, or None"},
    {"setup", (PyCFunction)(void (*)(void))setup, METH_FASTCALL,
     "setup(ProofNode, Var, Const, Literal, Clause)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_ground",
    "The compiled core of peirce.engine.ground_ask (see that module).", -1, module_methods,
};

PyMODINIT_FUNC PyInit__ground(void) {
    if (PyType_Ready(&ProgramType) < 0) return NULL;
#define S(var, text)                                                                          \
    if ((var = PyUnicode_InternFromString(text)) == NULL) return NULL;
    S(s_head, "head");
    S(s_body, "body");
    S(s_label, "label");
    S(s_args, "args");
    S(s_predicate, "predicate");
    S(s_negated, "negated");
    S(s_name, "name");
    S(s_value, "value");
    S(s_sep, ", ");
    S(s_if, " :- ");
    S(s_none, "none");
    S(s_unproved, "unproved");
#undef S
    return PyModule_Create(&moduledef);
}
