#ifndef DOCBM_CLIBATTR_SHIM_H
#define DOCBM_CLIBATTR_SHIM_H
#include <attr/libattr.h>
#include <attr/error_context.h>
#endif
