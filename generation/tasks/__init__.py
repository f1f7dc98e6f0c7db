"""The tasks, each one module registered here; a task is a list of query shapes. The paper's five are built by
default; `count` is opt-in (`Task.opt_in`)."""
from . import count, duration, mix, negation, order, overlap
from .group import (EVENTS_PER_CLIP, Candidate, Planning, PlanningError, QueryPlan, check_feasible, draw_shape,
                    longest_discrete, plan_group, possible_texts, shape_of, usable_shapes)
from .members import Quotas
from .shape import Shape, Task

TASKS: dict[str, Task] = {t.name: t for t in (negation.TASK, order.TASK, overlap.TASK, duration.TASK, mix.TASK,
                                              count.TASK)}
DEFAULT_TASKS = tuple(name for name, task in TASKS.items() if not task.opt_in)

__all__ = ["TASKS", "DEFAULT_TASKS", "Task", "Shape", "QueryPlan", "Candidate", "Planning", "PlanningError", "Quotas",
           "EVENTS_PER_CLIP", "check_feasible", "draw_shape", "longest_discrete", "plan_group", "possible_texts",
           "shape_of", "usable_shapes"]
