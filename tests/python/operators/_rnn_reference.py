"""Reference RNN/GRU/LSTM following the ONNX operator definitions, written with torch tensors so that
autograd gives the reference gradients. Cross-checked against torch.nn.RNN/GRU/LSTM in test_rnn.py."""
import numpy as np
import torch

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
DEFAULT_ACTS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}
_ALPHA_BETA = {"affine": (2, 1.0, 0.0), "leakyrelu": (1, 0.01, 0), "thresholdedrelu": (1, 1.0, 0),
               "scaledtanh": (2, 1.0, 1.0), "hardsigmoid": (2, 0.2, 0.5), "elu": (1, 1.0, 0)}


def _act(name, alpha, beta):
    n = name.lower()
    return {
        "relu": torch.relu, "tanh": torch.tanh, "sigmoid": torch.sigmoid,
        "affine": lambda x: alpha * x + beta,
        "leakyrelu": lambda x: torch.where(x >= 0, x, alpha * x),
        "thresholdedrelu": lambda x: torch.where(x > alpha, x, torch.zeros_like(x)),
        "scaledtanh": lambda x: alpha * torch.tanh(beta * x),
        "hardsigmoid": lambda x: torch.clamp(alpha * x + beta, 0, 1),
        "elu": lambda x: torch.where(x >= 0, x, alpha * (torch.exp(x) - 1)),
        "softsign": lambda x: x / (1 + torch.abs(x)),
        "softplus": torch.nn.functional.softplus,
    }[n]


def activations(op, dirs, names=None, alphas=(), betas=()):
    names = list(names or DEFAULT_ACTS[op])
    if len(names) == len(DEFAULT_ACTS[op]) and dirs == 2:
        names = names * 2
    alphas, betas, out = list(alphas), list(betas), []
    for n in names:
        k, a, b = _ALPHA_BETA.get(n.lower(), (0, 0, 0))
        if k >= 1 and alphas:
            a = alphas.pop(0)
        if k >= 2 and betas:
            b = betas.pop(0)
        out.append(_act(n, a, b))
    return out


def onnx_rnn(op, X, W, R, B=None, lens=None, h0=None, c0=None, P=None, direction="forward", layout=0,
             activations_=None, activation_alpha=(), activation_beta=(), clip=None, input_forget=0,
             linear_before_reset=0):
    """torch tensors in; returns [Y, Y_h] (+ [Y_c] for LSTM) as torch tensors."""
    if layout == 1:
        X = X.transpose(0, 1)
        h0 = None if h0 is None else h0.transpose(0, 1)
        c0 = None if c0 is None else c0.transpose(0, 1)
    S, N, _ = X.shape
    dirs, H = W.shape[0], R.shape[2]
    G = GATES[op]
    acts = activations(op, dirs, activations_, activation_alpha, activation_beta)
    na = len(DEFAULT_ACTS[op])
    lens = [S] * N if lens is None else [int(v) for v in lens]
    cl = (lambda v: torch.clamp(v, -clip, clip)) if clip is not None else (lambda v: v)
    zeros = X.new_zeros((N, H))
    Ys, Yhs, Ycs = [], [], []
    for d in range(dirs):
        rev = direction == "reverse" or d == 1
        f, g, h = (acts[d * na:(d + 1) * na] + [None, None])[:3]
        Wb = B[d, :G * H] if B is not None else X.new_zeros(G * H)
        Rb = B[d, G * H:] if B is not None else X.new_zeros(G * H)
        y = [[zeros[0] for _ in range(N)] for _ in range(S)]
        hN, cN = [], []
        for n in range(N):
            hs = h0[d, n] if h0 is not None else zeros[0]
            cs = c0[d, n] if c0 is not None else zeros[0]
            steps = range(lens[n] - 1, -1, -1) if rev else range(lens[n])
            for t in steps:
                xw = W[d] @ X[t, n] + Wb
                hr = R[d] @ hs + Rb
                if op == "RNN":
                    hs = f(cl(xw + hr))
                elif op == "GRU":
                    z = f(cl(xw[:H] + hr[:H]))
                    r = f(cl(xw[H:2 * H] + hr[H:2 * H]))
                    if linear_before_reset:
                        hh = g(cl(xw[2 * H:] + r * hr[2 * H:]))
                    else:
                        hh = g(cl(xw[2 * H:] + R[d, 2 * H:] @ (r * hs) + Rb[2 * H:]))
                    hs = (1 - z) * hh + z * hs
                else:
                    a = xw + hr
                    pi, po, pf = (P[d, :H], P[d, H:2 * H], P[d, 2 * H:]) if P is not None else (0, 0, 0)
                    i = f(cl(a[:H] + pi * cs))
                    fg = 1 - i if input_forget else f(cl(a[2 * H:3 * H] + pf * cs))
                    cs = fg * cs + i * g(cl(a[3 * H:]))
                    o = f(cl(a[H:2 * H] + po * cs))
                    hs = o * h(cs)
                y[t][n] = hs
            hN.append(hs)
            cN.append(cs)
        Ys.append(torch.stack([torch.stack(row) for row in y]))
        Yhs.append(torch.stack(hN))
        Ycs.append(torch.stack(cN))
    Y, Yh, Yc = torch.stack(Ys, 1), torch.stack(Yhs), torch.stack(Ycs)
    if layout == 1:
        Y, Yh, Yc = Y.permute(2, 0, 1, 3), Yh.transpose(0, 1), Yc.transpose(0, 1)
    return [Y, Yh, Yc] if op == "LSTM" else [Y, Yh]


def random_inputs(op, seq, batch, inp, hidden, dirs=1, bias=True, h0=True, c0=True, peep=False, seed=0,
                  dtype=np.float32, layout=0):
    """[X, W, R, B, lens, h0, c0, P] (None for absent ones) in ONNX layouts."""
    rng = np.random.RandomState(seed)
    G = GATES[op]
    u = lambda *s: rng.uniform(-0.6, 0.6, s).astype(dtype)
    X = u(batch, seq, inp) if layout else u(seq, batch, inp)
    state = (batch, dirs, hidden) if layout else (dirs, batch, hidden)
    ins = [X, u(dirs, G * hidden, inp), u(dirs, G * hidden, hidden), u(dirs, 2 * G * hidden) if bias else None,
           None, u(*state) if h0 else None]
    if op == "LSTM":
        ins += [u(*state) if c0 else None, u(dirs, 3 * hidden) if peep else None]
    return ins


def reference(op, ins, attrs):
    """numpy float64 outputs of onnx_rnn for ONNX-ordered inputs and node attributes."""
    t = [None if a is None else (torch.tensor(np.asarray(a, np.float64)) if a.dtype.kind == "f" else a)
         for a in ins] + [None] * (8 - len(ins))
    kw = {k: v for k, v in attrs.items() if k != "hidden_size"}
    if "activations" in kw:
        kw["activations_"] = kw.pop("activations")
    out = onnx_rnn(op, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], **kw)
    return [o.detach().numpy() for o in out]
