/* SCF Table 2, configuration 8: the main loop, calling the find, fetch and update routines.
   A cache simulator after Dinero: separate instruction and data caches of isize and dsize
   kilobytes, blocks of bsize bytes, associativity assoc (1 = direct-mapped), LRU replacement; the
   cache configuration is what the stager fixes at run time. Trace entry r is an access of kind
   kinds[r] (0 data read, 1 data write, 2 instruction fetch, as Dinero's labels) at byte address
   addrs[r] >= 0. stats receives {fetches, instruction misses, reads, writes, data misses}; the
   result is the total number of misses. Each cache may have at most 4096 lines. */

/* The way of `set` that holds block `tag`, or -1. */
int find_entry(const int tags[], int set, int assoc, int tag) {
  for (int way = 0; way < assoc; way++) {
    if (tags[set * assoc + way] == tag) {
      return way;
    }
  }
  return -1;
}

/* Brings block `tag` into `set`, replacing its least recently used line (invalid lines are always
   the oldest); returns the way. */
int fetch_entry(int tags[], const int ages[], int set, int assoc, int tag) {
  int victim = 0;
  for (int way = 1; way < assoc; way++) {
    if (ages[set * assoc + way] > ages[set * assoc + victim]) {
      victim = way;
    }
  }
  tags[set * assoc + victim] = tag;
  return victim;
}

/* Makes `way` the most recently used line of `set` (LRU stack update of the ages). */
void update_entry(int ages[], int set, int assoc, int way) {
  int age = ages[set * assoc + way];
  for (int w = 0; w < assoc; w++) {
    if (ages[set * assoc + w] < age) {
      ages[set * assoc + w]++;
    }
  }
  ages[set * assoc + way] = 0;
}

int main_loop(const int kinds[], const int addrs[], int n, int isize, int dsize, int assoc, int bsize,
              int stats[]) {
  int itags[4096];
  int iages[4096];
  int dtags[4096];
  int dages[4096];
  int isets = isize * 1024 / bsize / assoc;
  int dsets = dsize * 1024 / bsize / assoc;
  for (int line = 0; line < isets * assoc; line++) {
    itags[line] = -1;
    iages[line] = assoc - 1 - line % assoc;
  }
  for (int line = 0; line < dsets * assoc; line++) {
    dtags[line] = -1;
    dages[line] = assoc - 1 - line % assoc;
  }
  for (int s = 0; s < 5; s++) {
    stats[s] = 0;
  }
  int misses = 0;
  for (int r = 0; r < n; r++) {
    int block = addrs[r] / bsize;
    if (kinds[r] == 2) {
      int set = block % isets;
      int tag = block / isets;
      int way = find_entry(itags, set, assoc, tag);
      stats[0]++;
      if (way < 0) {
        stats[1]++;
        misses++;
        way = fetch_entry(itags, iages, set, assoc, tag);
      }
      update_entry(iages, set, assoc, way);
    } else {
      int set = block % dsets;
      int tag = block / dsets;
      int way = find_entry(dtags, set, assoc, tag);
      if (kinds[r] == 0) {
        stats[2]++;
      } else {
        stats[3]++;
      }
      if (way < 0) {
        stats[4]++;
        misses++;
        way = fetch_entry(dtags, dages, set, assoc, tag);
      }
      update_entry(dages, set, assoc, way);
    }
  }
  return misses;
}
