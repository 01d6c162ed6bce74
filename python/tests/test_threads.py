"""The module releases the GIL while the device works: another Python thread keeps running during
a call, and calls from several threads queue on the one device and each get their own answer."""
import threading
import time

import numpy as np

import vkattn


def call_spanning(seconds, rng):
    """Attention inputs whose call takes at least `seconds` on this device: the batch doubles
    until it does (each size's first call builds its buffers; the second is timed), up to 8 of
    (8, 256, 64): past 2^23 key/query pairs CPU drivers take another kernel variant, which lavapipe
    needs 9 s to build from empty caches."""
    batch = 1
    while True:
        q, k, v = (rng.standard_normal((batch, 8, 256, 64)).astype(np.float32) for _ in range(3))
        vkattn.scaled_dot_product_attention(q, k, v)
        start = time.perf_counter()
        vkattn.scaled_dot_product_attention(q, k, v)
        if time.perf_counter() - start >= seconds or batch >= 8:
            return q, k, v
        batch *= 2


def test_other_threads_run_while_the_device_works(rng):
    q, k, v = call_spanning(0.2, rng)
    done = threading.Event()
    span = {}

    def work():
        start = time.perf_counter()
        vkattn.scaled_dot_product_attention(q, k, v)
        span["call"] = time.perf_counter() - start
        done.set()

    worker = threading.Thread(target=work)
    last = time.perf_counter()
    longest_gap = 0.0
    worker.start()
    while not done.is_set():  # this thread needs the GIL for every iteration
        now = time.perf_counter()
        longest_gap, last = max(longest_gap, now - last), now
        time.sleep(0.001)  # leaves the cores to the device (lavapipe runs on them)
    worker.join()
    assert span["call"] > 0.05, "the call must be long enough to tell the two cases apart"
    # Holding the GIL through the call would stop this loop for the whole call.
    assert longest_gap < 0.5 * span["call"], (longest_gap, span["call"])


def test_calls_from_several_threads_each_get_their_answer(rng):
    inputs = [rng.standard_normal((3, 50)).astype(np.float32) * (i + 1) for i in range(8)]
    results = [None] * len(inputs)

    def work(i):
        for _ in range(5):
            results[i] = vkattn.softmax(inputs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x, y in zip(inputs, results):
        e = np.exp(x.astype(np.float64) - x.max(-1, keepdims=True))
        np.testing.assert_allclose(y, e / e.sum(-1, keepdims=True), atol=2e-6, rtol=1e-5)
