"""An MLP written once against the PyTorch-shaped API (`lib` is glassbox or torch): Linear-ReLU layers
and a cross-entropy loss (784-1024-1024-10 by default, the MNIST-sized network tutorials train)."""


def build(lib, widths=(784, 1024, 1024, 10)):
    nn, F = lib.nn, lib.nn.functional
    layers = []
    for i in range(len(widths) - 1):
        layers.append(nn.Linear(widths[i], widths[i + 1]))
        if i < len(widths) - 2:
            layers.append(nn.ReLU())

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(*layers)

        def forward(self, x, targets):
            return F.cross_entropy(self.net(x), targets)

    return MLP()
