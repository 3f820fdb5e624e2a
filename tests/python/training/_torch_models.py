"""Small versions of today's common architectures in plain torch (no
torchvision), for the exporter tests: an AlexNet-style CNN, a ResNet basic
block, a MobileNetV3 inverted-residual block with squeeze-excitation, a small
ViT and a transformer encoder block (Hugging Face BERT layer layout)."""
import torch
from torch import nn
from torch.nn import functional as F


class AlexNetStyle(nn.Module):
    """AlexNet's layout: conv/ReLU/max-pool features, adaptive average pool,
    then dropout/linear/ReLU classifier."""

    def __init__(self, dropout=0.5, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=5, stride=2, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(16, 24, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2))
        self.avgpool = nn.AdaptiveAvgPool2d((3, 3))  # 32x32 inputs: 3x3 features, as AlexNet's 6x6 at 224
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), nn.Linear(24 * 3 * 3, 32), nn.ReLU(inplace=True),
            nn.Dropout(p=dropout), nn.Linear(32, classes))

    def forward(self, x):
        x = self.avgpool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


class ResNetBlockNet(nn.Module):
    """A stem, one ResNet basic block with a strided 1x1 downsample, global pool and fc."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.conv1 = nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.down = nn.Sequential(nn.Conv2d(8, 16, 1, stride=2, bias=False), nn.BatchNorm2d(16))
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        x = self.stem(x)
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        y = F.relu(y + self.down(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))


class MobileNetV3BlockNet(nn.Module):
    """Inverted residual: 1x1 expand + hardswish, depthwise 3x3, squeeze-excitation
    (hardsigmoid gate), 1x1 project, residual add; then pool, hardswish head, dropout, fc."""

    def __init__(self, dropout=0.2, classes=10):
        super().__init__()
        c, e, s = 8, 24, 8
        self.stem = nn.Sequential(nn.Conv2d(3, c, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(c),
                                  nn.Hardswish())
        self.expand = nn.Sequential(nn.Conv2d(c, e, 1, bias=False), nn.BatchNorm2d(e), nn.Hardswish())
        self.dw = nn.Sequential(nn.Conv2d(e, e, 3, padding=1, groups=e, bias=False), nn.BatchNorm2d(e),
                                nn.Hardswish())
        self.se_reduce = nn.Conv2d(e, s, 1)
        self.se_expand = nn.Conv2d(s, e, 1)
        self.project = nn.Sequential(nn.Conv2d(e, c, 1, bias=False), nn.BatchNorm2d(c))
        self.head = nn.Sequential(nn.Linear(c, 16), nn.Hardswish(), nn.Dropout(p=dropout), nn.Linear(16, classes))

    def forward(self, x):
        x = self.stem(x)
        y = self.dw(self.expand(x))
        gate = F.hardsigmoid(self.se_expand(F.relu(self.se_reduce(F.adaptive_avg_pool2d(y, 1)))))
        y = self.project(y * gate)
        x = x + y
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class Attention(nn.Module):
    """Multi-head self-attention written out: qkv projections, scaled softmax, output projection."""

    def __init__(self, dim, heads, dropout=0.0):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        b, n, d = x.shape
        h = self.heads

        def split(t):
            return t.reshape(b, n, h, d // h).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / (d // h) ** 0.5
        if mask is not None:
            scores = scores + mask
        probs = self.drop(torch.softmax(scores, dim=-1))
        y = torch.matmul(probs, v).transpose(1, 2).reshape(b, n, d)
        return self.out(y)


class ViTSmall(nn.Module):
    """Patch embedding (strided conv), class token, position embedding, two
    pre-norm encoder layers (attention + GELU MLP), head on the class token."""

    def __init__(self, image=16, patch=4, dim=32, heads=4, depth=2, classes=10, dropout=0.1):
        super().__init__()
        self.embed = nn.Conv2d(3, dim, patch, stride=patch)
        n = (image // patch) ** 2
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, n + 1, dim) * 0.02)
        self.layers = nn.ModuleList()
        for _ in range(depth):
            self.layers.append(nn.ModuleDict({
                "ln1": nn.LayerNorm(dim), "attn": Attention(dim, heads, dropout), "ln2": nn.LayerNorm(dim),
                "mlp": nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Dropout(dropout),
                                     nn.Linear(2 * dim, dim))}))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        for layer in self.layers:
            x = x + layer["attn"](layer["ln1"](x))
            x = x + layer["mlp"](layer["ln2"](x))
        return self.head(self.norm(x)[:, 0])


class TransformerEncoderBlock(nn.Module):
    """A BERT layer as Hugging Face lays it out: attention with an additive
    mask, dropout, residual + post-LayerNorm, GELU intermediate, output + LayerNorm."""

    def __init__(self, dim=32, heads=4, inner=64, dropout=0.1):
        super().__init__()
        self.attention = Attention(dim, heads, dropout)
        self.attn_drop = nn.Dropout(dropout)
        self.ln1 = nn.LayerNorm(dim, eps=1e-12)
        self.intermediate = nn.Linear(dim, inner)
        self.output = nn.Linear(inner, dim)
        self.out_drop = nn.Dropout(dropout)
        self.ln2 = nn.LayerNorm(dim, eps=1e-12)

    def forward(self, hidden, attention_mask):
        mask = (1.0 - attention_mask[:, None, None, :]) * -10000.0
        h = self.ln1(hidden + self.attn_drop(self.attention(hidden, mask)))
        inner = F.gelu(self.intermediate(h))
        return self.ln2(h + self.out_drop(self.output(inner)))
