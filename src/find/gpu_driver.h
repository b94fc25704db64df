/* The host side of find's GPU backends (cuda/find/, opencl/find/), the same
 * for both: a pool of slots (each a queue or stream with its own buffers,
 * so that several scan calls are in flight at once), and a chunk's range
 * scanned on one slot in windows of at most `window` starts, each through
 * the backend's calls (sg_gpu_ops_t): its text put on the device, the
 * kernels run and their hits counted, the hit buffer grown and the window
 * counted again while its hits overflow it, the hits read back and moved to
 * chunk coordinates. The backend keeps everything of its API: devices,
 * buffers, kernels, and its statistics (under the pool's lock, mu).
 *
 * A backend may open its devices on a thread of its own while the pipeline
 * starts: scan calls wait until it says the pool is ready, and a failed
 * start is said once, by the first call to see it. */
#ifndef SG_FIND_GPU_DRIVER_H
#define SG_FIND_GPU_DRIVER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/chunk.h"
#include "find/hits.h"

/* What a backend does for one window on one of its slots. be and slot are
 * the driver's be and sg_gpu_scan's slot; each call returns 0, or an
 * SG_ERR_ code with the reason in err. */
typedef struct {
    /** The window's text (text bytes at seq: its n starts and the overlap
     *  after them, less at the chunk's end) into the slot's staging, and
     *  on to the device. */
    int (*put)(void *be, void *slot, const char *seq, size_t text, size_t n, char *err, size_t errsz);
    /** The kernels over the window's n starts, into the slot's hit buffer:
     *  the hits they counted into *found, what the buffer holds into *cap. */
    int (*count)(void *be, void *slot, size_t n, uint64_t *found, size_t *cap, char *err, size_t errsz);
    /** A hit buffer of cap hits in place of the slot's. */
    int (*grow)(void *be, void *slot, size_t cap, char *err, size_t errsz);
    /** The first found hits of the buffer into out (found may be 0: out is
     *  NULL then, and the call still waits for what the slot has queued). */
    int (*get)(void *be, void *slot, uint64_t *out, size_t found, char *err, size_t errsz);
    /** Optional: the window is done, n starts, found hits read (its statistics). */
    void (*done)(void *be, void *slot, size_t n, size_t found);
} sg_gpu_ops_t;

typedef struct {
    const sg_gpu_ops_t *ops;
    void *be;             /* handed to every call of ops */
    size_t window;        /* starts a window, at most */
    size_t overlap;       /* bases a window's text has past its last start: the longest site - 1 */
    int exact;            /* the device's count is exact past the buffer (else it stops soon after its size) */
    /* the pool; mu also guards the backend's statistics */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n_slot;
    unsigned char *busy;
    int ready, rc, reported, broken;
    char err[512];        /* why the start failed (rc < 0) */
    uint64_t windows, rescans; /* windows scanned, and scanned again (under mu) */
} sg_gpu_driver_t;

/** A driver with no slots, not ready; ops, be, window, overlap and exact are the backend's to set. */
void sg_gpu_init(sg_gpu_driver_t *g);
void sg_gpu_close(sg_gpu_driver_t *g);

/** The backend's start is done: n_slot slots, or rc < 0 and why in err
 *  (no slot is handed out then). Wakes the scan calls waiting for it. */
void sg_gpu_ready(sg_gpu_driver_t *g, int n_slot, int rc, const char *err);

/**
 * A free slot for a scan call, waiting for the start and then for a slot.
 * The first call to see a failed start copies its reason to msg and sets
 * *at_start (when msg is not NULL).
 * @return the slot's index; the start's error, or SG_ERR_DEVICE once a
 *         scan failed (sg_gpu_give)
 */
int sg_gpu_take(sg_gpu_driver_t *g, char *msg, size_t msgsz, int *at_start);
/** Slot i free again; failed: the scan on it failed, and no slot is handed out from now on. */
void sg_gpu_give(sg_gpu_driver_t *g, int i, int failed);

/**
 * Append the hits starting in [from, to) of chunk c to hits, scanned on
 * slot in windows; stops early once hits has more than it keeps
 * (sg_hits_over), leaving it so.
 * @return 0, or the first failed call's code (its reason in err)
 */
int sg_gpu_scan(sg_gpu_driver_t *g, void *slot, const sg_chunk_t *c, size_t from, size_t to, sg_hits_t *hits,
                char *err, size_t errsz);

#endif
