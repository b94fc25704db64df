/* Layout: src/core/stage.c (issue 29's src/core/ "auto").
 * auto's answer to a device that fails, for every stage (stage.h). */
#include "core/stage.h"
#include "core/log.h"

#include <stdio.h>
#include <string.h>

int sg_stage_fall_back(sg_stage_t *s, const char *failure)
{
    if (!s->fallback) return 0;
    /* a device the kernel driver reports, that does not work, is news */
    if (failure) sg_warn("%s; %s", failure, s->instead);
    else sg_warn("CUDA device unusable (%s); %s", s->err, s->instead);
    if (s->why) snprintf(s->why, s->whysz, "auto: cpu (the CUDA device failed: %.180s)", s->err);
    s->backend = "cpu";
    s->fell_back = 1;
    return 1;
}

int sg_stage_run(sg_stage_t *s, sg_stage_fn fn, void *arg)
{
    s->err[0] = 0;
    int r = fn(arg, s->backend, s->err, sizeof s->err);
    if (r != SG_ERR_DEVICE || strcmp(s->backend, "cuda") || !s->fallback) return r;
    if (s->again && (r = s->again(arg, s->err)) < 0) return r;
    (void)sg_stage_fall_back(s, NULL);
    return fn(arg, s->backend, s->err, sizeof s->err);
}
