"""A ResNet-style CNN written once against the PyTorch-shaped API (`lib` is glassbox or torch): a
3x3 stem, stages of two basic residual blocks (conv-bn-relu-conv-bn plus a shortcut, a strided 1x1
conv where the shape changes), adaptive average pooling and a linear classifier. ResNet-18's layout
at widths (64, 128, 256, 512) with two blocks per stage; smaller widths for quick runs."""


def build(lib, classes=10, widths=(64, 128, 256, 512), in_channels=3):
    nn, F = lib.nn, lib.nn.functional

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.shortcut = None
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return F.relu(out + (x if self.shortcut is None else self.shortcut(x)))

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(
                nn.Conv2d(in_channels, widths[0], 3, padding=1, bias=False), nn.BatchNorm2d(widths[0]), nn.ReLU()
            )
            blocks, cin = [], widths[0]
            for i, w in enumerate(widths):
                blocks += [BasicBlock(cin, w, 1 if i == 0 else 2), BasicBlock(w, w, 1)]
                cin = w
            self.blocks = nn.Sequential(*blocks)
            self.head = nn.Linear(cin, classes)

        def forward(self, x, targets):
            x = F.adaptive_avg_pool2d(self.blocks(self.stem(x)), 1).flatten(1)
            return F.cross_entropy(self.head(x), targets)

    return ResNet()
