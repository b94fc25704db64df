#!/usr/bin/env python3
"""scipy's strongly connected components of an edge list ("from to" lines),
the peer of seqgpu scc --edges in the bench scripts: prints the seconds of
the connected_components call alone (reading and relabelling not counted)
and the number of components."""
import sys
import time

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

e = np.fromfile(sys.argv[1], dtype=np.int64, sep=' ').reshape(-1, 2)
nodes, inv = np.unique(e, return_inverse=True)  # the nodes that occur, as seqgpu numbers them
inv = inv.reshape(e.shape)
m = csr_matrix((np.ones(len(e), dtype=np.int8), (inv[:, 0], inv[:, 1])), shape=(len(nodes), len(nodes)))
t = time.perf_counter()
nc, _ = connected_components(m, directed=True, connection='strong')
print('%.4f %d' % (time.perf_counter() - t, nc))
