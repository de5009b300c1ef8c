"""The alarms' thresholds, one pydantic model: ``[tool.verifier_audit.monitor]`` in
pyproject.toml is checked against it (``config.py``) and the CLI builds it from there.
``docs/monitor-alarms.md`` explains each."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Thresholds(BaseModel):
    """Every threshold of the alarms. Fractions of a run are fractions of its points
    (smoothing, persistence, initial value) or of its step span (windows, "how early")."""

    model_config = ConfigDict(extra="forbid")

    # --- shared ---------------------------------------------------------------------
    smooth_window: float = Field(
        0.05, gt=0.0, le=1.0, description=("Rolling-median window, as a fraction of the series' points (at least 3).")
    )
    persistence: float = Field(
        0.10,
        gt=0.0,
        le=1.0,
        description=(
            "A condition must hold on this fraction of the smoothed points in a row (at least 3), "
            "or from where it starts to the end of the log (at least half as many)."
        ),
    )
    initial_window: float = Field(
        0.05,
        gt=0.0,
        le=1.0,
        description=("The initial value is the median of this fraction of the first raw points (at least 3)."),
    )
    min_points: int = Field(
        10, ge=3, description=("A series with fewer points is too short for an alarm (it is reported as not checked).")
    )
    max_points: int = Field(
        2000, ge=50, description=("Longer series are reduced to this many equal-count bins (median) before smoothing.")
    )
    slope_t: float = Field(
        3.0,
        gt=0.0,
        description=("A slope is significant when its t-statistic (least squares on the raw points) is at least this."),
    )

    # --- entropy collapse -------------------------------------------------------------
    entropy_loss: float = Field(
        0.70,
        gt=0.0,
        lt=1.0,
        description=("Fire when the smoothed entropy falls below (1 - entropy_loss) x its initial value."),
    )
    entropy_within: float = Field(
        1.0, gt=0.0, le=1.0, description=("... and the fall happens within this fraction of the run (1.0: any time).")
    )

    # --- reward-variance collapse ------------------------------------------------------
    reward_std_fraction: float = Field(
        0.30,
        gt=0.0,
        lt=1.0,
        description=("Fire when the smoothed group reward std falls to this fraction of its initial value..."),
    )
    zero_std_level: float = Field(
        0.50, gt=0.0, le=1.0, description=("... or the smoothed fraction of zero-std groups rises to this level...")
    )
    variance_within: float = Field(
        0.50,
        gt=0.0,
        le=1.0,
        description=("... within this fraction of the run (early: later, a solved task set is expected)."),
    )

    # --- KL drift ---------------------------------------------------------------------
    kl_level: float = Field(
        0.10, description=("Fire when the smoothed KL at the end of the log is at least this (nats)...")
    )
    kl_slope: float = Field(
        0.01,
        ge=0.0,
        description=("... and still rising over the tail: slope per 100 steps at least this, and significant."),
    )
    kl_window: float = Field(
        0.25,
        gt=0.0,
        le=1.0,
        description=("The tail whose slope is measured, as a fraction of the KL series' step span."),
    )

    # --- length -----------------------------------------------------------------------
    length_blowup_factor: float = Field(
        3.0,
        gt=1.0,
        description=("Fire when the smoothed completion length reaches this multiple of its initial value."),
    )
    length_collapse_factor: float = Field(
        2.0, gt=1.0, description=("Fire when the smoothed completion length falls to its initial value / this.")
    )

    # --- train reward vs validation ------------------------------------------------------
    divergence_window: float = Field(
        0.50,
        gt=0.0,
        le=1.0,
        description=("The last fraction of the steps where reward and val_accuracy overlap that is compared."),
    )
    train_min_rise: float = Field(
        0.20, gt=0.0, description=("The training reward must rise significantly by at least this normalised rise.")
    )
    val_max_t: float = Field(
        0.0,
        description=(
            "Validation counts as stalled or falling when the t-statistic of its slope is at most "
            "this (0: its slope is not positive; 2 also flags a rise that is not significant, which "
            "with a handful of evaluations is common on healthy runs)..."
        ),
    )
    val_stall_ratio: float = Field(
        0.25,
        ge=0.0,
        lt=1.0,
        description=("... or its normalised rise is at most this fraction of the training reward's (the gap widens)."),
    )
    val_min_points: int = Field(4, ge=3, description="Validation points needed in the window.")

    # --- per-reward-function divergence -----------------------------------------------------
    reward_fn_window: float = Field(
        0.50, gt=0.0, le=1.0, description=("The last fraction of the run over which reward terms' trends are compared.")
    )
    reward_fn_min_rise: float = Field(
        0.30,
        gt=0.0,
        description=("A term climbs when its slope is significant and its normalised rise is at least this."),
    )
    reward_fn_flat: float = Field(
        0.10,
        ge=0.0,
        description=(
            "Another term is flat or falling unless its slope is significant and its normalised rise exceeds this."
        ),
    )
    reward_fn_saturated: float = Field(
        0.80,
        gt=0.0,
        le=1.0,
        description=(
            "A flat term (normalised rise within +-reward_fn_flat) whose window mean sits at least "
            "this high in its own range is saturated (learnt already): it does not count against "
            "the climbing one."
        ),
    )

    # --- paid-but-wrong rising (the live watch's labels, verifier_audit/watch) -------------------
    paid_wrong_z: float = Field(
        4.0,
        gt=0.0,
        description=(
            "Fire when the Cochran-Armitage trend statistic of the paid-but-wrong share over the "
            "watch's windows is at least this (one-sided; the test runs at every window, so it is "
            "strict: flat shares fired in at most 2 of 200 runs of 300 windows, benchmarks/bench_watch.py)..."
        ),
    )
    paid_wrong_windows: int = Field(
        20, ge=3, description="... over at most this many windows, the latest ones (a trend, not the run's history)..."
    )
    paid_wrong_min_windows: int = Field(3, ge=2, description="... of which at least this many hold a labelled rollout.")
