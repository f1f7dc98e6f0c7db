"""The five tasks, each one module registered here."""
from . import duration, mix, negation, order, overlap
from .base import (Candidate, PlanningError, QueryPlan, Task, check_feasible, longest_discrete, plan_group,
                   possible_texts)

TASKS: dict[str, Task] = {t.name: t for t in (negation.TASK, order.TASK, overlap.TASK, duration.TASK, mix.TASK)}

__all__ = ["TASKS", "Task", "QueryPlan", "Candidate", "PlanningError", "check_feasible", "longest_discrete",
           "plan_group", "possible_texts"]
