"""The candidates the determinism and thread probes (and the exploit search) may pick from
when ``score`` streams: every candidate while they fit in a block, else a bounded sample
that does not depend on the blocks' order (see ``ProbePool``)."""

from __future__ import annotations

import heapq

from ...engine.audit import Prepared
from ...engine.sensing import sample_hash
from ...models import Candidate, Verdict

PARTNERS_PER_SCORE, PARTNER_SCORES = 2, 4  # the probe pool's candidates per task: per distinct score, scores


class ProbePool:
    """The candidates the probes (and the search) may pick from. Every candidate and its
    verdict while there are at most ``cap`` of them: the probes then choose as they always
    did. Past ``cap``, a bounded pool that does not depend on the order or the blocks the
    candidates came in: per category, the ``k`` scored ones of smallest seeded hash of their
    id (a uniform sample of the category); per task, up to PARTNERS_PER_SCORE of each of its
    first PARTNER_SCORES distinct scores (the thread probe's partner is one of the same task
    the verifier scored differently, when there is one). In the candidates' order."""

    def __init__(self, cap: int, k: int, seed: int):
        self.cap, self.k, self.seed = cap, k, seed
        self.full = True
        self.rows: list[tuple[int, Candidate, Verdict]] = []
        self.seq = 0
        self.by_category: dict[str, list] = {}
        self.by_task: dict[str, dict[float, list]] = {}

    def add(self, c: Candidate, v: Verdict) -> None:
        self.seq += 1
        if self.full:
            self.rows.append((self.seq, c, v))
            if len(self.rows) > self.cap:
                self.full = False
                rows, self.rows = self.rows, []
                for row in rows:
                    self._keep(row)
        else:
            self._keep((self.seq, c, v))

    def _keep(self, row: tuple[int, Candidate, Verdict]) -> None:
        seq, c, v = row
        if v.status != "ok" or v.score is None:
            return  # the probes rescore only what was scored
        h = sample_hash(self.seed, c.id)
        heap = self.by_category.setdefault(c.category, [])
        heapq.heappush(heap, (-h, seq, c, v))
        if len(heap) > self.k:
            heapq.heappop(heap)  # the largest hash
        scores = self.by_task.setdefault(c.task_id, {})
        if v.score in scores:
            if len(scores[v.score]) < PARTNERS_PER_SCORE:
                scores[v.score].append(row)
        elif len(scores) < PARTNER_SCORES:
            scores[v.score] = [row]

    def view(self, base: Prepared) -> tuple[Prepared, dict[str, Verdict]]:
        if self.full:
            rows = self.rows
        else:
            kept = {seq: (seq, c, v) for heap in self.by_category.values() for _, seq, c, v in heap}
            kept.update(
                (seq, (seq, c, v)) for scores in self.by_task.values() for rs in scores.values() for seq, c, v in rs
            )
            rows = [kept[s] for s in sorted(kept)]
        return (
            Prepared(base.suite_name, base.suite_hash, base.domain, base.tasks, [c for _, c, _ in rows], []),
            {c.id: v for _, c, v in rows},
        )
