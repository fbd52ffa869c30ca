"""Guided lessons: TOML files in lessons/ played as a story across pages (plain Python, no
streamlit). model: Lesson, Step, Question, LessonError; loader: parse, load, bundled lessons;
writer: a view of the app as a [[steps]] block."""
