"""Shared pytest setup. Helpers live in tests/support/ (AppTest, pages, browser, server)."""
