"""Distributed graphs over Dask workers (issue 25): 1, 2 and 4 workers give the single-process results for every
distributed algorithm on generated and real graphs; the parallel readers build gg.load's graph; bad input fails every
rank with the file's line and leaves nothing behind."""

from __future__ import annotations

import gzip
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphgear as gg
from graphgear.algorithms.verify import verify_bfs
from graphgear.errors import GraphError, GraphFormatError, StrategyError

from conftest import REAL_GRAPHS, real_graph

distributed = pytest.importorskip("distributed")
from graphgear.distributed import local_cluster, partition  # noqa: E402

WORKERS = (1, 2, 4)
GENERATED = ("kron:9:w", "rmat:9:8:w", "grid:24:24:0.7:w", "er:600:3:w", "kron:8:w:seed=3")


@pytest.fixture(scope="module")
def client():
    c = local_cluster(4, processes=False)
    yield c
    c.close()


def _workers(client, k):
    return sorted(client.nthreads())[:k]


def _same_results(g, dg, source=0):
    """`source` is an internal index; the calls name it by its label, as a user would."""
    label = source if g.vertex_ids is None else g.vertex_ids[source].item()
    b1, b2 = gg.bfs(g, label), gg.bfs(dg, label)
    assert np.array_equal(b1.distances, b2.distances)
    verify_bfs(g, source, b2.distances, predecessors=b2.predecessors)
    if g.weighted:
        s1, s2 = gg.sssp(g, label), gg.sssp(dg, label)
        assert np.array_equal(s1.distances, s2.distances)
        assert np.array_equal(s1.predecessors, s2.predecessors)
    c1, c2 = gg.connected_components(g), gg.connected_components(dg)
    assert np.array_equal(c1.labels, c2.labels)
    for weight in ("weight", None):
        r1, r2 = gg.pagerank(g, weight=weight), gg.pagerank(dg, weight=weight)
        assert r1.iterations == r2.iterations
        np.testing.assert_allclose(r2.ranks, r1.ranks, rtol=1e-12, atol=1e-15)
    for method in ("delta", "priority", "dense"):  # the methods a DistributedGraph does not run, refused by name
        with pytest.raises(GraphError, match=f"runs PageRank's power iteration.*not method='{method}'"):
            gg.pagerank(dg, method=method)


@pytest.mark.parametrize("k", WORKERS)
@pytest.mark.parametrize("spec", GENERATED)
def test_generated_graphs_scattered(client, spec, k):
    g = gg.load(spec)
    with partition(g, client, workers=_workers(client, k)) as dg:
        assert dg.size == k and dg.num_vertices == g.num_vertices and dg.num_arcs == g.num_arcs
        assert dg.bounds[0] == 0 and dg.bounds[-1] == g.num_vertices and (np.diff(dg.bounds) >= 0).all()
        assert (dg.bounds[1:-1] % 8 == 0).all()
        _same_results(g, dg, source=int(np.argmax(g.out_degree())))


@pytest.mark.parametrize("k", WORKERS)
@pytest.mark.parametrize("spec", ("kron:9:w", "rmat:9:8:w", "kron:9", "rmat:8:4:seed=5"))
def test_generator_drawn_on_the_workers_is_gg_load_graph(client, spec, k):
    g = gg.load(spec)
    with partition(spec, client, workers=_workers(client, k)) as dg:
        h = dg.to_graph()
        assert h.directed == g.directed and np.array_equal(h.offsets, g.offsets)
        assert np.array_equal(h.indices, g.indices)
        assert (g.weights is None and h.weights is None) or np.array_equal(h.weights, g.weights)
        _same_results(g, dg)


@pytest.mark.parametrize("k", (1, 2))
def test_generator_drawn_by_threads_is_gg_load_graph(client, monkeypatch, k):
    """Each rank draws its records in slices on threads, each from its own copy of the stream advanced to its slice:
    with as many threads as a 64-core host gives, the graph is still gg.load's."""
    from graphgear.distributed import readers

    monkeypatch.setattr(readers.os, "cpu_count", lambda: 64)
    g = gg.load("kron:15:w")
    with partition("kron:15:w", client, workers=_workers(client, k)) as dg:
        h = dg.to_graph()
        assert np.array_equal(h.offsets, g.offsets) and np.array_equal(h.indices, g.indices)
        assert np.array_equal(h.weights, g.weights)


def test_row_blocks_cover_the_rows_within_the_limit():
    from graphgear.distributed.pagerank import row_blocks

    rng = np.random.default_rng(5)
    for _ in range(200):
        degrees = rng.integers(0, 9, int(rng.integers(0, 40)))
        offsets = np.concatenate(([0], np.cumsum(degrees)))
        limit = int(rng.integers(1, 30))
        blocks = row_blocks(offsets, limit)
        assert blocks[0][0] == 0 and blocks[-1][1] == len(degrees)
        assert all(b0[1] == b1[0] for b0, b1 in zip(blocks, blocks[1:]))
        for a, b in blocks:
            assert b > a or len(degrees) == 0
            assert offsets[b] - offsets[a] <= limit or b == a + 1  # over the limit only as one long row


def _pagerank_over_row_blocks(client, backend, monkeypatch):
    from graphgear.distributed import pagerank as distributed_pagerank

    monkeypatch.setitem(distributed_pagerank.MATRIX_ARCS, backend, 100)
    g = gg.load("rmat:9:8:w")
    with partition(g, client, backend=backend) as dg:
        for weight in ("weight", None):
            r1, r2 = gg.pagerank(g, weight=weight), gg.pagerank(dg, weight=weight)
            assert r1.iterations == r2.iterations
            np.testing.assert_allclose(r2.ranks, r1.ranks, rtol=1e-12, atol=1e-15)
        blocks = dg.spmd(lambda ctx, part: len(ctx.cache["pagerank-matrix-True"]))
        assert min(blocks) > 1  # every rank's matrix was cut


def test_pagerank_over_row_blocks(client, monkeypatch):
    """PageRank with each rank's matrix cut into row blocks (as a GPU rank with more in-arcs than MATRIX_ARCS is)
    equals the single-process result."""
    _pagerank_over_row_blocks(client, "cpu", monkeypatch)


@pytest.mark.gpu
def test_pagerank_over_row_blocks_on_a_gpu_worker(monkeypatch):
    """The same on a GPU worker: the blocks are cuSPARSE matrices (kron:29 on 4 H200s takes 4 or 5 a rank)."""
    c = local_cluster(1, "cuda", processes=False)
    try:
        _pagerank_over_row_blocks(c, "cuda", monkeypatch)
    finally:
        c.close()


def test_build_phases_timed_on_every_rank(client):
    """A part the workers built says how long each of its build phases took, rank by rank."""
    from graphgear.distributed.readers import BUILD_PHASES

    with partition("kron:9", client) as dg:
        assert dg.build_seconds is not None and len(dg.build_seconds) == dg.size
        for phases in dg.build_seconds:
            assert list(phases) == list(BUILD_PHASES) and all(t >= 0 for t in phases.values())
    with partition(gg.load("kron:9"), client) as dg:  # scattered from the client: nothing built on the workers
        assert dg.build_seconds is None


@settings(max_examples=60, deadline=None)
@given(m=st.integers(0, 3000), n=st.integers(1, 500), P=st.integers(1, 6), mirror=st.booleans(),
       drop_loops=st.booleans(), weighted=st.booleans(), seed=st.integers(0, 2**31))
def test_records_laid_out_by_owner(m, n, P, mirror, drop_loops, weighted, seed):
    """_to_owners' counting sort sends rank p exactly the records it owns (mirrored and without loops as asked)."""
    from graphgear.distributed.graph import balanced_bounds
    from graphgear.distributed.readers import _to_owners

    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.random(m).astype(np.float32) if weighted else None
    bounds = balanced_bounds(rng.integers(0, 5, n), P)

    class Host:  # one rank's view: what it sends to every rank, returned as if each sent it back
        size = P

        def alltoallv(self, pieces, out=None, sizes=None):
            assert len(pieces) == P
            if sizes is not None:
                assert [int(x) for x in sizes] == [piece.size for piece in pieces]
            if out is not None:  # each piece lands in `out` one after another, as HostCollectives does
                at = 0
                for k, piece in enumerate(pieces):
                    out[at:at + piece.size] = piece
                    pieces[k], at = out[at:at + piece.size], at + piece.size
                assert at == out.size
            self.pieces = pieces
            return pieces

    records = [src, dst, w]
    key, other, weights = _to_owners(Host(), bounds, records, mirror=mirror, drop_loops=drop_loops, consume=True)
    assert records == []  # handed over
    keep = src != dst if drop_loops else np.ones(m, dtype=bool)
    wk, wo = src[keep], dst[keep]
    ww = np.zeros(wk.size, dtype=np.float32) if w is None else w[keep]
    if mirror:
        wk, wo, ww = np.concatenate((wk, wo)), np.concatenate((wo, wk)), np.concatenate((ww, ww))
    owner = np.searchsorted(bounds, key, side="right") - 1
    assert (np.diff(owner) >= 0).all()  # rank 0's records, then rank 1's, ...
    assert (weights is None) == (w is None)
    gw = np.zeros(key.size, dtype=np.float32) if weights is None else weights
    assert sorted(zip(key.tolist(), other.tolist(), gw.tolist())) == sorted(zip(wk.tolist(), wo.tolist(), ww.tolist()))


def _slow_kron_records(ctx, *args):
    """gg's own records, after a pause long enough for the client to see the first phase."""
    import time

    from graphgear.distributed import readers

    time.sleep(0.8)
    return readers.kron_records_unpatched(ctx, *args)


def test_build_progress_names_the_phases(client, monkeypatch):
    """With progress on, the client's bar follows rank 0 through the build's phases; the Variable it reads is gone
    afterwards, and the graph is gg.load's."""
    from graphgear import progress
    from graphgear.distributed import readers

    seen = []
    update = progress.Task.update

    def recorded(self, completed=None, description=None):
        seen.append(description)
        update(self, completed, description)

    monkeypatch.setattr(progress.Task, "update", recorded)
    monkeypatch.setattr(progress, "_enabled_by_default", True)
    monkeypatch.setattr(readers, "kron_records_unpatched", readers._kron_records, raising=False)
    monkeypatch.setattr(readers, "_kron_records", _slow_kron_records)
    with partition("kron:10", client, workers=_workers(client, 2)) as dg:
        assert np.array_equal(dg.to_graph().indices, gg.load("kron:10").indices)
        assert any(d and d.endswith(readers.BUILD_PHASES[0]) for d in seen)
        from distributed import Variable

        with pytest.raises(readers._TIMEOUTS):  # deleted: nothing left to read
            Variable(f"{dg.key}-phase", client=client).get(timeout=0.2)


def test_balanced_bounds_equal_ranges_unless_unbalanced():
    """Equal vertex ranges (every one but the last the same length, so NCCL's collectives need no copies) where no
    rank then holds over EQUAL_RANGES_SLACK more arcs than the mean; ranges balanced by arcs otherwise."""
    from graphgear.distributed.graph import ALIGN, EQUAL_RANGES_SLACK, balanced_bounds

    even = np.full(1000, 7)
    b = balanced_bounds(even, 4)
    assert list(b) == [0, 256, 512, 768, 1000]
    skewed = np.ones(1000, dtype=np.int64)
    skewed[:100] = 100  # the first ranks' vertices hold most arcs
    b = balanced_bounds(skewed, 4)
    loads = np.add.reduceat(skewed, b[:-1])
    assert loads.max() <= skewed.sum() / 4 + skewed.max() * ALIGN  # balanced by arcs, up to one aligned block
    assert b[1] < 256 and (b[1:-1] % ALIGN == 0).all()
    rng = np.random.default_rng(1)
    for _ in range(50):
        arcs = rng.integers(0, 20, size=int(rng.integers(1, 3000)))
        parts = int(rng.integers(1, 9))
        b = balanced_bounds(arcs, parts)
        assert b[0] == 0 and b[-1] == arcs.size and (np.diff(b) >= 0).all() and (b[1:-1] % ALIGN == 0).all()
        weights = arcs if arcs.sum() else np.ones_like(arcs)  # no arcs at all: the vertices are split evenly
        bound = (1 + EQUAL_RANGES_SLACK) * weights.sum() / parts
        lengths = np.diff(b)
        step = -(-arcs.size // (parts * ALIGN)) * ALIGN
        cuts = np.minimum(np.arange(parts + 1) * step, arcs.size)
        cuts[-1] = arcs.size
        worst_equal = max(weights[cuts[r]:cuts[r + 1]].sum() for r in range(parts))
        if worst_equal <= bound:
            assert list(b) == list(cuts)
        else:  # equal ranges would be too uneven: balanced by arcs
            assert not (lengths[:-1] == step).all() or list(b) != list(cuts)


def test_bfs_trace_has_a_row_per_level(client):
    g = gg.load("kron:12")
    source = int(np.argmax(g.out_degree()))
    with partition(g, client, workers=_workers(client, 2)) as dg:
        r = gg.bfs(dg, source)
        assert len(r.trace) == r.distances.max() + 1  # the last level finds nothing and ends the search
        assert [row.frontier_vertices for row in r.trace][:2] == [1, int((r.distances == 1).sum())]
        assert r.trace.rows[0].reason.startswith("m_f") or r.trace.rows[0].reason == "keep"
        limited = gg.bfs(dg, source, depth_limit=2)
        assert len(limited.trace) == 2 and limited.distances.max() == 2


@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_real_graphs(client, name):
    g = gg.load(real_graph(name))
    for k in WORKERS:
        with partition(g, client, workers=_workers(client, k)) as dg:
            _same_results(g, dg, source=int(np.argmax(g.out_degree())))


@pytest.mark.parametrize("k", WORKERS)
def test_edge_list_read_in_byte_ranges(client, tmp_path, k):
    rng = np.random.default_rng(1)
    src = rng.integers(0, 400, 3000) * 3 + 7  # ids with gaps: renumbered as gg.load renumbers them
    dst = rng.integers(0, 400, 3000) * 3 + 7
    w = rng.integers(1, 50, 3000)
    lines = ["# directed", "% a comment"] + [f"{a}\t{b}\t{c}" for a, b, c in zip(src, dst, w)]
    lines.insert(1500, "# a comment in the middle")
    lines.insert(900, "")
    path = tmp_path / "graph.txt"
    path.write_text("\n".join(lines) + "\n")
    g = gg.load(path)
    with partition(path, client, workers=_workers(client, k)) as dg:
        h = dg.to_graph()
        assert h.directed and np.array_equal(h.offsets, g.offsets) and np.array_equal(h.indices, g.indices)
        assert np.array_equal(h.weights, g.weights) and np.array_equal(dg.vertex_ids, g.vertex_ids)
        label = int(g.vertex_ids[5])
        assert gg.bfs(dg, label).to_dict() == gg.bfs(g, label).to_dict()


def test_edge_list_without_gaps_and_undirected(client, tmp_path):
    g = gg.load("grid:20:20:0.8:w")
    path = tmp_path / "grid.el"
    gg.save(g, path)
    with partition(path, client, directed=False) as dg:
        h = dg.to_graph()
        assert not h.directed and np.array_equal(h.indices, gg.load(path, directed=False).indices)


@pytest.mark.parametrize("k", (1, 3, 4))
def test_npz_read_by_rows(client, tmp_path, k):
    for spec in ("rmat:9:8:w", "kron:9"):
        g = gg.load(spec)
        path = tmp_path / "g.npz"
        gg.save(g, path)
        with partition(path, client, workers=_workers(client, k)) as dg:
            h = dg.to_graph()
            assert h.directed == g.directed and np.array_equal(h.offsets, g.offsets)
            assert np.array_equal(h.indices, g.indices)
            _same_results(g, dg)


def test_formats_without_a_parallel_reader_are_scattered(client, tmp_path):
    g = gg.load("grid:10:10:w")
    for name in ("g.mtx", "g.gr", "g.txt.gz"):
        gg.save(g, tmp_path / name)
        with partition(tmp_path / name, client) as dg:
            assert np.array_equal(dg.to_graph().indices, gg.load(tmp_path / name).indices)


@pytest.mark.parametrize("k", (1, 2, 4))
def test_bad_line_fails_every_rank_with_the_files_line(client, tmp_path, k):
    lines = [f"{i} {i + 1} 1.5" for i in range(2000)]
    lines[1733] = "1733 17x4 2.0"
    path = tmp_path / "bad.txt"
    path.write_text("# a header comment\n" + "\n".join(lines) + "\n")
    with pytest.raises(GraphFormatError) as err:
        gg.load(path)
    with pytest.raises(GraphFormatError) as got:
        partition(path, client, workers=_workers(client, k))
    assert got.value.line == err.value.line == 1735 and "17x4" in str(got.value)
    # nothing half-made stays on the workers: the next partition and run work
    with partition("kron:8", client, workers=_workers(client, k)) as dg:
        assert gg.bfs(dg, 0).distances.shape == (256,)


def test_negative_id_and_overflowing_weight(client, tmp_path):
    path = tmp_path / "neg.txt"
    path.write_text("\n".join(["0 1", "1 2", "2 -3", "3 4"]) + "\n")
    with pytest.raises(GraphFormatError, match="line 3"):
        partition(path, client)
    path.write_text("\n".join(["0 1 1", "1 2 1e300", "2 3 1"]) + "\n")
    with pytest.raises(GraphFormatError, match="line 2"):
        partition(path, client)


def test_mistakes_are_refused_before_any_rank_runs(client):
    g = gg.load("kron:8:w")
    with pytest.raises(GraphError, match="Client"):
        partition(g, "tcp://nowhere:1")
    with partition(g, client) as dg:
        with pytest.raises(GraphError, match="out of range"):
            gg.bfs(dg, 10_000)
        with pytest.raises(StrategyError):
            gg.bfs(dg, 0, strategy="direction=pull")
        with pytest.raises(GraphError, match="DistributedGraph"):
            gg.betweenness_centrality(dg)
        with pytest.raises(GraphError, match="backend"):
            gg.pagerank(dg, backend="cuda")
        with pytest.raises(GraphError, match="personalization"):
            gg.pagerank(dg, personalization={99999: 1.0})
        assert gg.bfs(dg, 0).distances[0] == 0  # still usable after the refusals
    with pytest.raises(GraphError, match="closed"):
        gg.bfs(dg, 0)


def test_arguments_as_single_process(client):
    g = gg.load("grid:16:16:w")
    with partition(g, client) as dg:
        assert np.array_equal(gg.bfs(dg, 3, depth_limit=4).distances, gg.bfs(g, 3, depth_limit=4).distances)
        for cutoff in (0, 40.5, 300):
            a, b = gg.sssp(g, 3, cutoff=cutoff), gg.sssp(dg, 3, cutoff=cutoff)
            assert np.array_equal(a.distances, b.distances)
        a, b = gg.sssp(g, 3, weight=None), gg.sssp(dg, 3, weight=None)
        assert np.array_equal(a.distances, b.distances)
        a, b = gg.sssp(g, 3, method="bellman_ford"), gg.sssp(dg, 3, delta=7.0)
        assert np.array_equal(a.distances, b.distances)
        p = {0: 1.0, 5: 3.0}
        np.testing.assert_allclose(gg.pagerank(dg, 0.9, p, dangling={1: 1.0}).ranks,
                                   gg.pagerank(g, 0.9, p, dangling={1: 1.0}).ranks, rtol=1e-12)
        for bad in (-1, float("nan"), True):  # refused as gg.sssp refuses them
            with pytest.raises(GraphError, match="cutoff"):
                gg.sssp(g, 3, cutoff=bad)
            with pytest.raises(GraphError, match="cutoff"):
                gg.sssp(dg, 3, cutoff=bad)
        with pytest.raises(GraphError, match="did not converge"):
            gg.pagerank(dg, max_iter=2)
        assert gg.bfs(dg, 0).trace.rows and gg.pagerank(dg).trace.rows


def test_zero_weights_take_the_tight_tree(client):
    g = gg.Graph.from_edges([0, 1, 2, 1, 3], [1, 2, 1, 3, 4], [0.0, 0.0, 0.0, 1.0, 2.0], num_vertices=5,
                            directed=True)
    with partition(g, client, workers=_workers(client, 2)) as dg:
        a, b = gg.sssp(g, 0), gg.sssp(dg, 0)
        assert np.array_equal(a.distances, b.distances) and np.array_equal(a.predecessors, b.predecessors)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 40), data=st.data(), directed=st.booleans(), k=st.sampled_from(WORKERS))
def test_random_graphs(client, n, data, directed, k):
    """Random small graphs (isolated vertices, self-loops and parallel edges in the records, empty ranks): every
    distributed algorithm gives the single-process result."""
    m = data.draw(st.integers(0, 3 * n))
    src = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    dst = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    w = data.draw(st.lists(st.integers(1, 9), min_size=m, max_size=m))
    g = gg.Graph.from_edges(np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), np.array(w, np.float32),
                            num_vertices=n, directed=directed)
    source = data.draw(st.integers(0, n - 1))
    with partition(g, client, workers=_workers(client, k)) as dg:
        _same_results(g, dg, source)


@pytest.mark.slow
def test_worker_processes_over_tcp(tmp_path):
    """Workers in their own processes: the mesh crosses process boundaries as on several machines."""
    c = local_cluster(2)
    try:
        g = gg.load("rmat:10:8:w")
        with partition("rmat:10:8:w", c) as dg:
            _same_results(g, dg)
    finally:
        c.close()


@pytest.mark.gpu
def test_one_gpu_worker_matches_single_process():
    """One GPU worker (NCCL with one rank): every distributed algorithm equals the single-process GPU result."""
    c = local_cluster(1, "cuda", processes=False)
    try:
        for spec in ("kron:12:w", "rmat:12:8:w", "grid:64:64:0.8:w"):
            g = gg.load(spec)
            with partition(g, c, backend="cuda") as dg:
                assert dg.backend == "cuda"
                _same_results(g, dg, source=int(np.argmax(g.out_degree())))
                ref = gg.bfs(g, 0, backend="cuda")
                assert np.array_equal(gg.bfs(dg, 0).distances, ref.distances)
    finally:
        c.close()


@pytest.mark.gpu
def test_one_gpu_worker_matches_single_process_on_real_graphs():
    """One GPU worker on the ten shared real graphs (road, mesh, social, citation, internet; directed and weighted
    among them): every distributed algorithm equals the single-process result, as test_real_graphs checks on CPU
    workers."""
    c = local_cluster(1, "cuda", processes=False)
    try:
        for name in sorted(REAL_GRAPHS):
            g = gg.load(real_graph(name))
            with partition(g, c, backend="cuda") as dg:
                assert dg.backend == "cuda"
                _same_results(g, dg, source=int(np.argmax(g.out_degree())))
    finally:
        c.close()


@pytest.mark.gpu
@pytest.mark.parametrize("k", (2, 4))
def test_gpu_workers_match_single_process(k):
    """k GPU workers (dask-cuda, NCCL between processes): every distributed algorithm equals the single-process
    result, on equal ranges (kron) and on ranges balanced by arcs (rmat, the lattice)."""
    cupy = pytest.importorskip("cupy")
    if cupy.cuda.runtime.getDeviceCount() < k:
        pytest.skip(f"needs {k} GPUs")
    c = local_cluster(k, "cuda")
    try:
        for spec in ("kron:12:w", "rmat:12:8:w", "grid:64:64:0.8:w"):
            g = gg.load(spec)
            with partition(g, c, backend="cuda") as dg:
                _same_results(g, dg, source=int(np.argmax(g.out_degree())))
                _same_results(g, dg, source=1)
    finally:
        c.close()


def _on_threads(P: int, work) -> dict:
    """work(collectives) on P ranks, each a thread with its end of a TCP mesh; their results by rank."""
    import threading

    from graphgear.distributed.comm import HostCollectives, open_listener

    key = os.urandom(16)
    listeners = [open_listener("127.0.0.1", key) for _ in range(P)]
    addresses = [a for _, a in listeners]
    got: dict[int, object] = {}

    def rank(r: int) -> None:
        c = HostCollectives(r, P, listeners[r][0], addresses, key)
        try:
            got[r] = work(c)
        finally:
            c.close()

    threads = [threading.Thread(target=rank, args=(r,)) for r in range(P)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(got) == list(range(P)), "a rank failed"
    return got


@settings(max_examples=40, deadline=None)
@given(data=st.data(), P=st.integers(1, 5))
def test_bounds_over_ranks_equal_balanced_bounds_of_the_sum(data, P):
    """The build's bounds, found by reduce-scattering the ranks' arcs per vertex, are balanced_bounds of their sum."""
    from graphgear.distributed.graph import balanced_bounds
    from graphgear.distributed.readers import _bounds_over_ranks

    n = data.draw(st.integers(1, 400))
    high = data.draw(st.sampled_from([0, 1, 5, 100]))
    loads = [np.asarray(data.draw(st.lists(st.integers(0, high), min_size=n, max_size=n)), dtype=np.int64)
             for _ in range(P)]
    if data.draw(st.booleans()):  # skewed: a few heavy vertices near the front
        loads[0][:max(1, n // 10)] += 50
    got = _on_threads(P, lambda c: _bounds_over_ranks(c, loads[c.rank]))
    want = balanced_bounds(np.sum(loads, axis=0), P)
    for r in range(P):
        assert list(got[r]) == list(want)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 300), records=st.integers(0, 3000), chunks=st.integers(1, 9), seed=st.integers(0, 99))
def test_arcs_per_vertex_count_both_ends_but_not_self_loops(n, records, chunks, seed):
    """The build's arcs per vertex (a parallel count with atomic adds, any number of slices) are the records' ends,
    self-loops left out, as bincounts give them."""
    from graphgear.distributed.readers import _arcs_per_vertex

    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, records), rng.integers(0, n, records)
    dst[::7] = src[::7]  # self-loops among them
    load = np.zeros(n, dtype=np.int64)
    _arcs_per_vertex(src, dst, load, chunks)
    keep = src != dst
    assert np.array_equal(load, np.bincount(src[keep], minlength=n) + np.bincount(dst[keep], minlength=n))


def test_ranks_share_their_hosts_cores(client):
    """Each rank runs its parallel loops on its share of the host's cores: 4 ranks of one host, a quarter each."""
    import numba

    with partition("kron:6", client) as dg:
        shares = dg.spmd(lambda ctx, part: (ctx.neighbours, ctx.threads, numba.get_num_threads()))
    quarter = max(1, (os.cpu_count() or 1) // 4)
    assert shares == [(4, quarter, min(quarter, numba.config.NUMBA_NUM_THREADS))] * 4


@pytest.mark.parametrize("P", (1, 2, 3))
def test_host_collectives_equal_numpy(P):
    """The TCP mesh's collectives, P ranks on threads: each equals its NumPy definition (ranges of unequal sizes)."""
    counts = np.array([5, 3, 7][:P])
    data = [np.random.default_rng(r).integers(0, 100, int(counts.sum())) for r in range(P)]
    block = 4
    sent = [np.random.default_rng(10 + r).integers(0, 100, block * P) for r in range(P)]

    def collectives(c) -> tuple:
        r = c.rank
        lo, hi = int(counts[:r].sum()), int(counts[:r + 1].sum())
        pieces = [np.arange(r * 10 + p + 1) for p in range(P)]  # rank r sends rank p r*10+p+1 numbers
        into = np.full(sum(q * 10 + r + 1 for q in range(P)) + 3, -1)
        placed = c.alltoallv(pieces, out=into, sizes=[q * 10 + r + 1 for q in range(P)])
        assert all(np.array_equal(placed[q], np.arange(q * 10 + r + 1)) for q in range(P))
        assert (into[-3:] == -1).all() and np.array_equal(np.concatenate(placed), into[:-3])
        return (c.allgatherv(data[r][lo:hi], counts), c.allreduce(data[r], "min"),
                c.reduce_scatter(data[r], counts, "max"), c.alltoall(sent[r], block))

    got = _on_threads(P, collectives)
    edges = np.concatenate(([0], np.cumsum(counts)))
    for r in range(P):
        gathered, low, mine, blocks = got[r]
        assert np.array_equal(gathered, np.concatenate([data[p][edges[p]:edges[p + 1]] for p in range(P)]))
        assert np.array_equal(low, np.minimum.reduce(data))
        assert np.array_equal(mine, np.maximum.reduce(data)[edges[r]:edges[r + 1]])
        assert np.array_equal(blocks, np.concatenate([sent[p][r * block:(r + 1) * block] for p in range(P)]))


def test_gzipped_edge_list_is_loaded_then_scattered(client, tmp_path):
    path = tmp_path / "g.txt.gz"
    with gzip.open(path, "wt") as f:
        f.write("0 1\n1 2\n2 0\n")
    with partition(os.fspath(path), client) as dg:
        assert dg.num_vertices == 3 and gg.connected_components(dg).num_components == 1
