"""`bidlab serve`: the bid-odds calculator and the rule comparer in the browser.

app.py (the FastAPI application: pages, JSON API, the report), jobs.py (worker threads, a
bounded queue, cancellation, the cache), variants.py (shipped games and uploaded variant
files), odds_api.py and compare_api.py (queries checked, run and answered as JSON),
sheets.py (the cheat-sheet cell of a hand, from a report's data), errors.py (one sentence
per refusal), static/ (the pages: plain HTML, CSS and JavaScript, no build step).
"""
