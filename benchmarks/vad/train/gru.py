"""A recurrent speech classifier, trained with backpropagation through time.

    features (per 10 ms frame) -> dense + ReLU -> GRU -> dense -> logit

Used two ways by train.py: as a classifier of its own on the front end's
features (`--model gru`, a trial), and as each context member's recurrent
head on the context network's inputs (`--recurrent-state`, shipped; the
element's RecurrentNetwork runs it).

The feature front end already sees 320 ms of summaries; the GRU carries
context for as long as it learns to (a talker's rhythm across pauses, a
melody or an animal call that goes on for seconds), in a state of `hidden`
floats. Plain numpy: the gates follow the usual GRU definition

    r = sigmoid(x Wr + h Ur + br)        z = sigmoid(x Wz + h Uz + bz)
    n = tanh(x Wn + r * (h Un + bn') + bn)    h' = (1 - z) * n + z * h

and the gradients are written out by hand below, one time step at a time
in reverse. Training runs on chunks of consecutive frames (the cached
streams in order) from a zero state; the first `warmup` frames of a chunk
carry no loss, so the model learns to decide from a state it has built
itself, as it does in the element, which starts at zero too.
"""
import numpy as np


def sigmoid(x):
    return 1 / (1 + np.exp(-np.clip(x, -30, 30)))


def stream_offsets(lengths):
    """Where each stream starts in the frames laid end to end, and where the last ends."""
    return np.concatenate([[0], np.cumsum(lengths)])


def chunk_starts(lengths, chunk):
    """Where training chunks may start: every half chunk inside each stream,
    never across a join (a chunk starts from a zero state, as a stream does)."""
    offsets = stream_offsets(lengths)
    return np.concatenate([np.arange(start, start + length - chunk + 1, chunk // 2)
                           for start, length in zip(offsets[:-1], lengths) if length >= chunk])


class GRUClassifier:
    def __init__(self, inputs, dense, hidden, rng):
        f32 = np.float32
        self.w1 = (rng.standard_normal((inputs, dense)) * np.sqrt(2 / inputs)).astype(f32)
        self.b1 = np.zeros(dense, f32)
        # Input and recurrent weights of the three gates side by side: r, z, n.
        self.wi = (rng.standard_normal((dense, 3 * hidden)) * np.sqrt(1 / dense)).astype(f32)
        self.bi = np.zeros(3 * hidden, f32)
        self.wh = np.concatenate([np.linalg.qr(rng.standard_normal((hidden, hidden)))[0] for _ in range(3)], axis=1).astype(f32)
        self.bh = np.zeros(3 * hidden, f32)
        self.wo = (rng.standard_normal((hidden, 1)) * np.sqrt(1 / hidden)).astype(f32)
        self.bo = np.zeros(1, f32)
        self.hidden = hidden

    def parameters(self):
        return [self.w1, self.b1, self.wi, self.bi, self.wh, self.bh, self.wo, self.bo]

    def forward(self, x, keep=False, h=None):
        """x: (batch, time, inputs) -> logits (batch, time), from state `h`
        (zero when None); the last state is left in `self.state`."""
        batch, steps, _ = x.shape
        hidden = self.hidden
        pre1 = x @ self.w1 + self.b1
        a1 = np.maximum(pre1, 0)
        xi = a1 @ self.wi + self.bi
        h = np.zeros((batch, hidden), self.w1.dtype) if h is None else h
        hs = np.empty((batch, steps, hidden), self.w1.dtype)
        if keep:
            gates = np.empty((batch, steps, 3 * hidden), self.w1.dtype)  # r, z, n
            hn = np.empty((batch, steps, hidden), self.w1.dtype)          # h Un + bn'
        for t in range(steps):
            hh = h @ self.wh + self.bh
            rz = sigmoid(xi[:, t, :2 * hidden] + hh[:, :2 * hidden])
            r, z = rz[:, :hidden], rz[:, hidden:]
            n = np.tanh(xi[:, t, 2 * hidden:] + r * hh[:, 2 * hidden:])
            h = (1 - z) * n + z * h
            hs[:, t] = h
            if keep:
                gates[:, t, :2 * hidden] = rz
                gates[:, t, 2 * hidden:] = n
                hn[:, t] = hh[:, 2 * hidden:]
        logits = (hs @ self.wo)[..., 0] + self.bo[0]
        self.state = h
        if keep:
            self.cache = (x, pre1, a1, hs, gates, hn)
        return logits

    def backward(self, dlogits):
        """Gradients of every parameter, given d loss / d logit (batch, time)."""
        x, pre1, a1, hs, gates, hn = self.cache
        batch, steps, hidden = hs.shape
        dwo = np.einsum("bth,bt->h", hs, dlogits)[:, None]
        dbo = np.array([dlogits.sum()], self.w1.dtype)
        dhs = dlogits[..., None] * self.wo[:, 0]
        dxi = np.empty((batch, steps, 3 * hidden), self.w1.dtype)
        dwh = np.zeros_like(self.wh)
        dbh = np.zeros_like(self.bh)
        dh = np.zeros((batch, hidden), self.w1.dtype)
        zero = np.zeros((batch, hidden), self.w1.dtype)
        for t in range(steps - 1, -1, -1):
            dh = dh + dhs[:, t]
            r, z, n = gates[:, t, :hidden], gates[:, t, hidden:2 * hidden], gates[:, t, 2 * hidden:]
            previous = hs[:, t - 1] if t > 0 else zero
            dn = dh * (1 - z) * (1 - n * n)
            dz = dh * (previous - n) * z * (1 - z)
            dr = dn * hn[:, t] * r * (1 - r)
            dxi[:, t, :hidden] = dr
            dxi[:, t, hidden:2 * hidden] = dz
            dxi[:, t, 2 * hidden:] = dn
            dhh = np.concatenate([dr, dz, dn * r], axis=1)
            dwh += previous.T @ dhh
            dbh += dhh.sum(axis=0)
            dh = dh * z + dhh @ self.wh.T
        flat = dxi.reshape(-1, 3 * hidden)
        dwi = a1.reshape(-1, a1.shape[-1]).T @ flat
        dbi = flat.sum(axis=0)
        da1 = (flat @ self.wi.T) * (pre1.reshape(-1, pre1.shape[-1]) > 0)
        dw1 = x.reshape(-1, x.shape[-1]).T @ da1
        db1 = da1.sum(axis=0)
        return [dw1, db1, dwi, dbi, dwh, dbh, dwo, dbo]

    def train(self, x, target, weight, epochs, rng, chunk=400, warmup=50, batch=64, rate=3e-3, log=print, lengths=None):
        """x, target, weight: per frame, streams in order. With the streams'
        `lengths`, chunks stay inside one stream (`chunk_starts`); without,
        they start every half chunk across the joins, as `--model gru` trained."""
        starts = chunk_starts(lengths, chunk) if lengths is not None else np.arange(0, len(x) - chunk, chunk // 2)
        params = self.parameters()
        moments = [np.zeros_like(p) for p in params]
        squares = [np.zeros_like(p) for p in params]
        step = 0
        mask = np.ones(chunk, self.w1.dtype)
        mask[:warmup] = 0
        for epoch in range(epochs):
            order = rng.permutation(starts)
            total, counted = 0.0, 0.0
            for first in range(0, len(order), batch):
                index = order[first:first + batch, None] + np.arange(chunk)
                xb, yb, wb = x[index], target[index], weight[index] * mask
                logits = self.forward(xb, keep=True)
                p = sigmoid(logits)
                total += float(np.sum(-wb * (yb * np.log(p + 1e-7) + (1 - yb) * np.log(1 - p + 1e-7))))
                counted += float(wb.sum())
                grads = self.backward(((p - yb) * wb / wb.sum()).astype(np.float32))
                step += 1
                norm = np.sqrt(sum(float(np.sum(g * g)) for g in grads))
                clip = min(1.0, 5.0 / (norm + 1e-9))
                for param, grad, m, v in zip(params, grads, moments, squares):
                    grad = grad * clip + 1e-5 * param * (param.ndim > 1)
                    m *= 0.9
                    m += 0.1 * grad
                    v *= 0.999
                    v += 0.001 * grad * grad
                    param -= (rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)).astype(self.w1.dtype)
            rate *= 0.85
            log(f"epoch {epoch + 1}: loss {total / max(counted, 1):.4f}")

    def logits(self, x, lengths=None, chunk=20000):
        """Runs each stream through from a zero state, state carried, as the
        element does (without `lengths`, the frames are one stream)."""
        offsets = stream_offsets([len(x)] if lengths is None else lengths)
        out = []
        for start, end in zip(offsets[:-1], offsets[1:]):
            h = None
            for first in range(start, end, chunk):
                out.append(self.forward(x[None, first:min(first + chunk, end)], h=h)[0])
                h = self.state
        return np.concatenate(out)

    def probability(self, x, lengths=None):
        return sigmoid(self.logits(x, lengths))
