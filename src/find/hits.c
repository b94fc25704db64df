#include "find/hits.h"
#include "core/log.h"

#include <stdlib.h>
#include <string.h>

int sg_hits_grow(sg_hits_t *h, size_t n)
{
    if (n <= h->m) return 0;
    if (h->max && n > h->max) return -1;
    size_t m = n < 1024 ? 1024 : n + n / 2;
    h->m = h->max && m > h->max ? h->max : m;
    h->a = sg_realloc(h->a, h->m * sizeof *h->a);
    return 0;
}

void sg_hits_free(sg_hits_t *h)
{
    free(h->a);
    h->a = NULL;
    h->n = h->m = 0;
}

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)

void sg_hits_sort(sg_hits_t *h)
{
    size_t n = h->n;
    if (n < 2) return;
    int sorted = 1;
    uint64_t diff = 0;
    for (size_t i = 1; i < n; i++) {
        if (h->a[i] < h->a[i - 1]) sorted = 0;
        diff |= h->a[i] ^ h->a[0];
    }
    if (sorted) return; /* the common case: kernels emit hits in start order */
    if (n < 256) {
        for (size_t i = 1; i < n; i++) {
            uint64_t k = h->a[i];
            size_t j = i;
            for (; j > 0 && h->a[j - 1] > k; j--) h->a[j] = h->a[j - 1];
            h->a[j] = k;
        }
        return;
    }
    uint64_t *tmp = sg_malloc(n * sizeof *tmp), *src = h->a, *dst = tmp;
    size_t *cnt = sg_malloc(RADIX_SIZE * sizeof *cnt);
    for (int shift = 0; shift < 64; shift += RADIX_BITS) {
        if (!((diff >> shift) & (RADIX_SIZE - 1))) continue; /* digit equal in every key */
        memset(cnt, 0, RADIX_SIZE * sizeof *cnt);
        for (size_t i = 0; i < n; i++) cnt[(src[i] >> shift) & (RADIX_SIZE - 1)]++;
        size_t sum = 0;
        for (size_t d = 0; d < RADIX_SIZE; d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) dst[cnt[(src[i] >> shift) & (RADIX_SIZE - 1)]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != h->a) memcpy(h->a, src, n * sizeof *src);
    free(tmp);
    free(cnt);
}
