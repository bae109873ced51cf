/**
 * @file
 * @brief The umbrella header of ito, fine-grained threads for Linux x86-64: includes every
 * public header.
 */
#ifndef ITO_ITO_H
#define ITO_ITO_H
#include "version.h"
#include "error.h"
#include "thread.h"
#include "time.h"
#include "sync.h"
#include "channel.h"
#include "future.h"
#include "tls.h"
#include "coop.h"
#include "zwt.h"
#include "spawn.h"
#include "syscall.h"
#include "preempt.h"
#include "regwin.h"
#include "debug.h"
#endif
