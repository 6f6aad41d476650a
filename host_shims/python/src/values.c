/* values.c - a call's arguments from Python values: the parameters a
 * signature describes, and scalars, exactly: an integer that does not fit
 * its type is refused, never wrapped. */
#include <math.h>
#include <string.h>

#include "values.h"

int shim_callee_describe(shim_state *st, const cuplug_type *sig, shim_callee *c) {
  const cuplug_api *api = st->api;
  cuplug_type_info si = {.struct_size = sizeof si, .type = sig};
  api->error_destroy(api->type_info(&si));
  c->nparams = 0;
  c->params = PyMem_Calloc(si.num_args + 1, sizeof *c->params);
  if (!c->params) return -1;
  for (size_t i = 0; i < si.num_args; i++) {
    cuplug_type_info ai = {.struct_size = sizeof ai, .type = si.args[i]};
    api->error_destroy(api->type_info(&ai));
    if (ai.kind == CUPLUG_TYPE_OMITTED) continue; /* the caller left it out: no value */
    shim_param *p = &c->params[c->nparams++];
    p->type = si.args[i];
    p->kind = ai.kind;
    p->name = ai.name;
    p->ndim = ai.ndim;
    p->layout = ai.layout;
    p->itemsize = ai.size;
    if (ai.element) {
      cuplug_type_info ei = {.struct_size = sizeof ei, .type = ai.element};
      api->error_destroy(api->type_info(&ei));
      p->dtype = ei.kind;
      p->itemsize = ei.size;
    }
  }
  return 0;
}

/* float to bfloat16's bits, rounded to nearest even (a NaN stays one) */
static uint16_t bfloat16_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if (isnan(f)) return (uint16_t)((u >> 16) | 0x40);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static double bfloat16_value(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

PyObject *shim_arg_error(const shim_callee *c, size_t i, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  PyObject *why = PyUnicode_FromFormatV(fmt, ap);
  va_end(ap);
  if (!why) return NULL;
  PyErr_Format(PyExc_TypeError, "%s %s, argument %zu (%s): %U", c->noun, c->name, i,
               c->params[i].name, why);
  Py_DECREF(why);
  return NULL;
}

int shim_arg_got(const shim_callee *c, size_t i, const char *fmt, PyObject *obj) {
  PyObject *tn = PyType_GetName(Py_TYPE(obj));
  shim_arg_error(c, i, fmt, tn);
  Py_XDECREF(tn);
  return -1;
}

/* float32 bits to float16 bits, rounding to nearest even. */
static uint16_t half_of(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xffu, m = x & 0x7fffffu;
  if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u : 0));
  int exp = (int)e - 127 + 15;
  if (exp >= 31) return (uint16_t)(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return (uint16_t)sign;
    m |= 0x800000u;
    int shift = 14 - exp;
    uint32_t h = m >> shift, rest = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)exp << 10) | (m >> 13), rest = m & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

/* float16 bits as a double */
static double half_value(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
  return h & 0x8000 ? -v : v;
}

/* n, an int, as a value of the integer parameter pr; false when it does
 * not fit pr's type. */
static bool int_of(PyObject *n, const shim_param *pr, long long *out) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(n, &overflow);
  unsigned long long u = 0;
  if (overflow > 0 && pr->kind == CUPLUG_TYPE_UINT64) { /* past INT64_MAX: uint64 only */
    u = PyLong_AsUnsignedLongLong(n);
    overflow = PyErr_Occurred() != NULL;
    PyErr_Clear();
    v = (long long)u;
  }
  *out = v;
  if (overflow) return false;
  unsigned bits = pr->itemsize * 8;
  if (pr->kind == CUPLUG_TYPE_UINT64) return v >= 0 || u;
  if (pr->kind >= CUPLUG_TYPE_UINT8 && pr->kind <= CUPLUG_TYPE_UINT64)
    return v >= 0 && (unsigned long long)v >> bits == 0;
  return bits == 64 || (v >= -(1ll << (bits - 1)) && v < (1ll << (bits - 1)));
}

int shim_scalar_value(const shim_param *pr, PyObject *obj, shim_slot *s, const char **why) {
  *why = NULL;
  switch (pr->kind) {
    case CUPLUG_TYPE_BOOL: {
      int b = PyObject_IsTrue(obj);
      if (b < 0) return -1;
      s->b = (uint8_t)b;
      return 0;
    }
    case CUPLUG_TYPE_FLOAT16:
    case CUPLUG_TYPE_BFLOAT16:
    case CUPLUG_TYPE_FLOAT32:
    case CUPLUG_TYPE_FLOAT64: {
      double d = PyFloat_AsDouble(obj);
      if (d == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        *why = "expected a number, got %U";
        return -1;
      }
      if (pr->kind == CUPLUG_TYPE_FLOAT64) s->d = d;
      else if (pr->kind == CUPLUG_TYPE_FLOAT32) s->f = (float)d;
      else if (pr->kind == CUPLUG_TYPE_BFLOAT16) s->h = bfloat16_of((float)d);
      else s->h = half_of((float)d);
      return 0;
    }
    case CUPLUG_TYPE_COMPLEX64:
    case CUPLUG_TYPE_COMPLEX128: {
      /* complex(obj): the imaginary part of a NumPy complex64, which is no
       * Python complex, reads as 0 through PyComplex_ImagAsDouble */
      PyObject *z = PyComplex_Check(obj)   ? Py_NewRef(obj)
                    : !PyNumber_Check(obj) ? NULL /* complex("1+2j") is no number */
                    : PyObject_CallFunctionObjArgs((PyObject *)&PyComplex_Type, obj, NULL);
      if (!z) {
        if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_TypeError) &&
            !PyErr_ExceptionMatches(PyExc_ValueError))
          return -1;
        PyErr_Clear();
        *why = "expected a complex number, got %U";
        return -1;
      }
      double re = PyComplex_RealAsDouble(z), im = PyComplex_ImagAsDouble(z);
      Py_DECREF(z);
      if (PyErr_Occurred()) return -1;
      if (pr->kind == CUPLUG_TYPE_COMPLEX128) {
        s->c[0] = re;
        s->c[1] = im;
      } else {
        s->cf[0] = (float)re;
        s->cf[1] = (float)im;
      }
      return 0;
    }
    case CUPLUG_TYPE_INT8: case CUPLUG_TYPE_INT16: case CUPLUG_TYPE_INT32: case CUPLUG_TYPE_INT64:
    case CUPLUG_TYPE_UINT8: case CUPLUG_TYPE_UINT16: case CUPLUG_TYPE_UINT32:
    case CUPLUG_TYPE_UINT64: case CUPLUG_TYPE_INT_LITERAL: {
      /* integers: exactly, within the type's range */
      PyObject *n = PyNumber_Index(obj);
      if (!n) {
        PyErr_Clear();
        *why = "expected an integer, got %U";
        return -1;
      }
      long long v;
      bool fits = int_of(n, pr, &v);
      Py_DECREF(n);
      if (!fits) {
        *why = "the value does not fit";
        return -1;
      }
      s->i = v; /* little-endian: the low bytes are the narrower value */
      return 0;
    }
    default: /* tuples, number classes: no slot holds them, the plugin would read past it */
      *why = "its type cannot be passed from Python";
      return -1;
  }
}

int shim_scalar_arg(const shim_callee *c, size_t i, PyObject *obj, shim_pack *p) {
  const shim_param *pr = &c->params[i];
  shim_slot *s = &p->slots[i];
  if (pr->kind == CUPLUG_TYPE_OPAQUE) { /* known only while compiling: nothing to pass */
    if (obj != Py_None) return shim_arg_got(c, i, "expected None (an opaque value), got %U", obj);
    shim_pack_put(p, i, pr->kind, NULL);
    return 0;
  }
  const char *why;
  if (shim_scalar_value(pr, obj, s, &why) < 0) return why ? shim_arg_got(c, i, why, obj) : -1;
  shim_pack_put(p, i, pr->kind, s);
  return 0;
}

void shim_pack_put(shim_pack *p, size_t i, cuplug_type_kind k, const void *data) {
  if (p->values) {
    p->values[i] = (cuplug_value){k, data};
    return;
  }
  p->arguments[i] = (cuplug_argument){CUPLUG_ARGUMENT_STRUCT_SIZE, k, data};
  p->argv[i] = &p->arguments[i];
}

PyObject *shim_result_value(cuplug_type_kind k, const shim_slot *r) {
  switch (k) {
    case CUPLUG_TYPE_VOID: Py_RETURN_NONE;
    case CUPLUG_TYPE_BOOL: return PyBool_FromLong(r->b);
    case CUPLUG_TYPE_INT8: return PyLong_FromLong((int8_t)r->b);
    case CUPLUG_TYPE_INT16: return PyLong_FromLong((int16_t)r->h);
    case CUPLUG_TYPE_INT32: return PyLong_FromLong((int32_t)(uint32_t)r->u);
    case CUPLUG_TYPE_INT64: return PyLong_FromLongLong(r->i);
    case CUPLUG_TYPE_UINT8: return PyLong_FromUnsignedLong(r->b);
    case CUPLUG_TYPE_UINT16: return PyLong_FromUnsignedLong(r->h);
    case CUPLUG_TYPE_UINT32: return PyLong_FromUnsignedLong((uint32_t)r->u);
    case CUPLUG_TYPE_UINT64: case CUPLUG_TYPE_POINTER: return PyLong_FromUnsignedLongLong(r->u);
    case CUPLUG_TYPE_FLOAT16: return PyFloat_FromDouble(half_value(r->h));
    case CUPLUG_TYPE_BFLOAT16: return PyFloat_FromDouble(bfloat16_value(r->h));
    case CUPLUG_TYPE_RECORD: return PyLong_FromUnsignedLongLong(r->u); /* its address */
    case CUPLUG_TYPE_OPAQUE: Py_RETURN_NONE;
    case CUPLUG_TYPE_FLOAT32: return PyFloat_FromDouble(r->f);
    case CUPLUG_TYPE_FLOAT64: return PyFloat_FromDouble(r->d);
    case CUPLUG_TYPE_COMPLEX64: return PyComplex_FromDoubles(r->cf[0], r->cf[1]);
    case CUPLUG_TYPE_COMPLEX128: return PyComplex_FromDoubles(r->c[0], r->c[1]);
    default: return PyErr_Format(PyExc_TypeError, "a host call cannot return this type");
  }
}
