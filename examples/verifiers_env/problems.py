"""The problems and system prompt both example environments use (classic and v1 API)."""

SYSTEM_PROMPT = "Think step by step, then write the final answer in \\boxed{}."

PROBLEMS = [
    {"question": "What is 27 * 70 + 217?", "answer": "2107"},
    {"question": "What is 1/4 + 1/4? Give a fraction.", "answer": "1/2"},
    {"question": "Solve for x: 3x - 7 = 11.", "answer": "6"},
    {"question": "What is 15% of 240?", "answer": "36"},
    {"question": "How many primes are there below 20?", "answer": "8"},
    {"question": "What is the sum of the interior angles of a hexagon, in degrees?", "answer": "720"},
    {"question": "What is (-3)^3?", "answer": "-27"},
    {"question": "What is the greatest common divisor of 84 and 126?", "answer": "42"},
]
