"""Moving a Medusa v1 (1.8–1.20) shop into this store: `commerce import medusa-v1 --from URL`."""

from services.migration.medusa_v1.progress import Progress
from services.migration.medusa_v1.report import Report
from services.migration.medusa_v1.run import move
from services.migration.medusa_v1.source import SourceError

__all__ = ["move", "Progress", "Report", "SourceError"]
