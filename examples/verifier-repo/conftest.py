import sys
from pathlib import Path

# The tests import rewards.py from the repository root, as the trainer does.
sys.path.insert(0, str(Path(__file__).parent))
