/* SPDX-License-Identifier: Apache-2.0
 *
 * Greedy decoding through the typed C API that mxc generates for
 * make_gpt_decode.py's step compiled with --kv-cache=in-place (gpt_ip.h):
 * the caches allocated once at their capacity and appended to by every
 * call, the filled length passed as the dimension `past` and as the input
 * past_length. Runs the prompt given as token ids on the command line, then
 * STEPS tokens one at a time, prints them and writes each step's last
 * logits to OUT (float32, steps + 1 rows); then a call past the capacity,
 * which must fail before anything is written.
 *
 *   gpt_decode_typed STEPS OUT ID...
 */
#include "gpt_ip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { HEADS = 4, CAPACITY = 64, HEAD = 16, VOCAB = 97, CACHES = 4 };

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: gpt_decode_typed STEPS OUT ID...\n");
    return 2;
  }
  int steps = atoi(argv[1]), prompt = argc - 3;
  FILE *out = fopen(argv[2], "wb");
  if (!out) {
    perror(argv[2]);
    return 1;
  }
  size_t cacheFloats = (size_t)HEADS * CAPACITY * HEAD;
  float *caches[CACHES];
  for (int c = 0; c < CACHES; ++c)
    caches[c] = calloc(cacheFloats, sizeof(float));
  int64_t *ids = malloc(sizeof(int64_t) * prompt),
          *positions = malloc(sizeof(int64_t) * prompt);
  float *logits = malloc(sizeof(float) * prompt * VOCAB);
  for (int i = 0; i < prompt; ++i)
    ids[i] = atoll(argv[3 + i]);
  gpt_ip *model = NULL;
  if (gpt_ip_create(NULL, &model) != MXRT_OK) {
    fprintf(stderr, "create: %s\n", mxrt_last_error());
    return 1;
  }
  int64_t filled = 0, seq = prompt;
  printf("tokens");
  for (int step = 0; step <= steps; ++step) {
    for (int64_t i = 0; i < seq; ++i)
      positions[i] = filled + i;
    if (gpt_ip_run(model, seq, filled, ids, positions, caches[0], caches[1],
                   caches[2], caches[3], &filled, logits) != MXRT_OK) {
      fprintf(stderr, "step %d: %s\n", step, mxrt_last_error());
      return 1;
    }
    const float *last = logits + (seq - 1) * VOCAB;
    fwrite(last, sizeof(float), VOCAB, out);
    int64_t best = 0;
    for (int64_t t = 1; t < VOCAB; ++t)
      if (last[t] > last[best])
        best = t;
    filled += seq;
    seq = 1;
    ids[0] = best;
    if (step < steps)
      printf(" %lld", (long long)best);
  }
  printf("\n");
  fclose(out);
  /* Past the capacity: refused, the caches and the logits untouched. */
  float before = caches[0][0];
  logits[0] = 12345.0f;
  int64_t full = CAPACITY;
  if (gpt_ip_run(model, 1, full, ids, positions, caches[0], caches[1],
                 caches[2], caches[3], &full, logits) == MXRT_OK) {
    fprintf(stderr, "a call past the capacity ran\n");
    return 1;
  }
  printf("past the capacity: %s\n", mxrt_last_error());
  if (caches[0][0] != before || logits[0] != 12345.0f) {
    fprintf(stderr, "the refused call wrote\n");
    return 1;
  }
  gpt_ip_release(model);
  return 0;
}
