/* artifact.h - cuplug.Artifact: what a compile or a link produced. */
#ifndef CUPLUG_PY_ARTIFACT_H
#define CUPLUG_PY_ARTIFACT_H

#include "objects.h"

/* Makes the type cuplug.Artifact and adds it to the module. */
int shim_artifact_init(PyObject *module, shim_state *st);

/* An Artifact owning `a` (destroyed here when that fails), its warnings
 * issued as Python warnings. */
PyObject *shim_artifact_new(shim_state *st, cuplug_artifact *a);

#endif
