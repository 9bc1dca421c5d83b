"""A small CNN on generated images, written as a PyTorch tutorial writes it: only the import lines
name glassbox. Batch norm, max pooling, bilinear interpolation and adaptive average pooling; SGD
with momentum and a step learning-rate schedule.

.venv/bin/python examples/cnn_images.py          # trains and prints the loss of each step
The same file with `import torch` in place of `import glassbox as torch` runs under PyTorch
(tests/python/test_examples.py does that and compares the two step by step).
"""

import numpy as np

import glassbox as torch
import glassbox.nn as nn
import glassbox.nn.functional as F

CLASSES = ("horizontal", "vertical", "diagonal", "square")


def make_images(count, size=12, seed=0):
    """count single-channel images of the four shapes above, with noise; returns (images, labels)."""
    rng = np.random.default_rng(seed)
    images = rng.normal(0.0, 0.3, (count, 1, size, size)).astype(np.float32)
    labels = rng.integers(0, len(CLASSES), count)
    for image, label in zip(images[:, 0], labels):
        at = rng.integers(2, size - 2)
        if label == 0:
            image[at, :] += 1.0
        elif label == 1:
            image[:, at] += 1.0
        elif label == 2:
            image[np.arange(size), np.arange(size)] += 1.0
        else:
            image[at - 2 : at + 2, at - 2 : at + 2] += 1.0
    return torch.from_numpy(images), torch.from_numpy(labels.astype(np.int64))


class SmallCNN(nn.Module):
    def __init__(self, classes=4):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        x = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.pool(F.relu(self.bn2(self.conv2(x))))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.head(x)


def train(model, images, labels, steps=40, batch=32):
    """Returns the loss of each step."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    losses = []
    model.train()
    for step in range(steps):
        start = (step * batch) % (len(labels) - batch + 1)
        x, y = images[start : start + batch], labels[start : start + batch]
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return losses


def accuracy(model, images, labels):
    model.eval()
    with torch.no_grad():
        return (model(images).argmax(1) == labels).sum().item() / len(labels)


if __name__ == "__main__":
    torch.manual_seed(0)
    images, labels = make_images(512)
    model = SmallCNN()
    for step, loss in enumerate(train(model, images, labels)):
        print(f"step {step:2d}  loss {loss:.4f}")
    test_images, test_labels = make_images(256, seed=1)
    print(f"accuracy on new images: {accuracy(model, test_images, test_labels):.2%}")
