"""The lecture room: presenter mode (a lesson played over the pages: presenter, focus, answers,
library, step_export) and the live classroom's screens (room: the presenter's side; student: a
phone's; votes; store; voter_id)."""
