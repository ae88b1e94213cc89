/* SCF Table 2, configuration 11: as main_loop_f_u, with the find routine inlined too.
   A cache simulator after Dinero: separate instruction and data caches of isize and dsize
   kilobytes, blocks of bsize bytes, associativity assoc (1 = direct-mapped), LRU replacement; the
   cache configuration is what the stager fixes at run time. Trace entry r is an access of kind
   kinds[r] (0 data read, 1 data write, 2 instruction fetch, as Dinero's labels) at byte address
   addrs[r] >= 0. stats receives {fetches, instruction misses, reads, writes, data misses}; the
   result is the total number of misses. Each cache may have at most 4096 lines. */

int main_loop_f_u_f(const int kinds[], const int addrs[], int n, int isize, int dsize, int assoc, int bsize,
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
      int way = -1;
      for (int w = 0; w < assoc; w++) {
        if (itags[set * assoc + w] == tag) {
          way = w;
        }
      }
      stats[0]++;
      if (way < 0) {
        stats[1]++;
        misses++;
        int victim = 0;
        for (int w = 1; w < assoc; w++) {
          if (iages[set * assoc + w] > iages[set * assoc + victim]) {
            victim = w;
          }
        }
        itags[set * assoc + victim] = tag;
        way = victim;
      }
      int age = iages[set * assoc + way];
      for (int w = 0; w < assoc; w++) {
        if (iages[set * assoc + w] < age) {
          iages[set * assoc + w]++;
        }
      }
      iages[set * assoc + way] = 0;
    } else {
      int set = block % dsets;
      int tag = block / dsets;
      int way = -1;
      for (int w = 0; w < assoc; w++) {
        if (dtags[set * assoc + w] == tag) {
          way = w;
        }
      }
      if (kinds[r] == 0) {
        stats[2]++;
      } else {
        stats[3]++;
      }
      if (way < 0) {
        stats[4]++;
        misses++;
        int victim = 0;
        for (int w = 1; w < assoc; w++) {
          if (dages[set * assoc + w] > dages[set * assoc + victim]) {
            victim = w;
          }
        }
        dtags[set * assoc + victim] = tag;
        way = victim;
      }
      int age = dages[set * assoc + way];
      for (int w = 0; w < assoc; w++) {
        if (dages[set * assoc + w] < age) {
          dages[set * assoc + w]++;
        }
      }
      dages[set * assoc + way] = 0;
    }
  }
  return misses;
}
