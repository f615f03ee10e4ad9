#ifndef DOCBM_CSODIUM_SHIM_H
#define DOCBM_CSODIUM_SHIM_H
#include <sodium.h>
#endif
