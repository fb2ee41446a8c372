/* shard.h: the seeds a differential test's part takes (`--shard K/N`): the
 * seeds 1..total are cut into N runs of ceil(total / N) consecutive seeds
 * (the last ones shorter or empty), and part K takes the K-th. */
#ifndef FUZZ_SHARD_H
#define FUZZ_SHARD_H

/* The first seed of part shard of shards of the seeds 1..total; *count is how many it takes. */
static inline long shard_seeds(long total, long shard, long shards, long *count) {
    long per = (total + shards - 1) / shards;
    long first = 1 + per * shard;
    long last = first + per - 1 < total ? first + per - 1 : total;
    *count = last >= first ? last - first + 1 : 0;
    return first;
}

#endif
