/* Just enough JSON writing for --stats files. */
#ifndef SG_JSON_H
#define SG_JSON_H

#include <stdio.h>

/** Write s as a JSON string literal (valid UTF-8 whatever the bytes of s). */
void sg_json_str(FILE *fp, const char *s);

#endif
