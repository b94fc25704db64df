/* Inputs read through a mapping (mmap). If someone truncates the file
 * while it is read, touching a page it lost raises SIGBUS; whatever reads
 * a mapping runs under sg_map_guarded(), on any thread, and the loss is a
 * read error rather than a crash. */
#ifndef SG_MAPGUARD_H
#define SG_MAPGUARD_H

#define SG_MAP_LOST "the file was truncated while it was read"

/** Install the SIGBUS handler (once; before the first mapping is read). */
void sg_map_guard_init(void);

/**
 * fn(arg) under a per-thread jump buffer: *lost is set, and SG_ERR_INPUT
 * returned, when a mapped file lost pages under it (what fn allocated
 * then is not freed: keep it where the caller can free it).
 * @return fn's value
 */
int sg_map_guarded(int (*fn)(void *arg), void *arg, int *lost);

#endif
