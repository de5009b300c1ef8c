#!/usr/bin/env python
"""Generate the built-in SQL suite: ``suites/sql/tasks.jsonl``.

Each task is an English question over one of the three built-in fixtures (``shop``,
``university``, ``company``; DDL in ``suites/sql/schemas``) and a gold query in plain DuckDB
SQL. Questions say which columns to return and, where the gold orders, the order (with a
tie-breaker whenever a LIMIT cuts through equal values, so that the gold is deterministic).
The gold orders rows only where the question asks for an order.

Before writing, every gold is executed on the materialised fixture: the script fails when
one errors or returns no rows (a task may be marked ``empty=True`` when an empty result on
the base fixture is the point; none is at present). The output is
deterministic (fixed order, no clock):

    python scripts/make_sql_suite.py            # writes suites/sql/tasks.jsonl
    python scripts/make_sql_suite.py --check    # exit 1 if the file is out of date

Splits (``split`` of each task):

- ``train`` and ``heldout`` share constructs: filters, LIKE, inner and outer joins, self
  joins (the manager hierarchy, referrals, prerequisites), aggregates, GROUP BY / HAVING,
  ORDER BY and LIMIT (including ties), DISTINCT, IN / NOT IN / EXISTS / NOT EXISTS subqueries
  (with NULLs), scalar subqueries, CTEs, CASE, dates, NULL handling. heldout asks different
  questions with the same constructs.
- ``shifted`` holds the constructs ABSENT from train and heldout: window functions,
  recursive CTEs and set operations (UNION / INTERSECT / EXCEPT). Every shifted task uses at
  least one of them; the script checks both directions.

``metadata``: ``schema`` (the fixture) and ``constructs`` (detected from the gold's syntax
tree with sqlglot, plus hand tags for what syntax does not show: ``ties``, ``date``,
``null_handling``, ``duplicates``, ``dangling_keys``).
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _suite_file.py lives beside this script
import duckdb
import sqlglot
from _suite_file import write_or_check  # noqa: E402
from sqlglot import exp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verifier_audit.domains.sql.fixtures import SCHEMA_NAMES, materialise  # noqa: E402

OUT = ROOT / "suites" / "sql" / "tasks.jsonl"
SHIFTED_CONSTRUCTS = ("window", "recursive_cte", "set_operation")


@dataclass(frozen=True)
class T:
    split: str
    question: str
    sql: str
    tags: str = ""  # hand tags, space separated
    empty: bool = False  # the gold returns no rows on the base fixture, on purpose


SHOP = [
    # ---------------------------------------------------------------- train
    T("train", "List the names and emails of all VIP customers.", "SELECT name, email FROM customers WHERE is_vip"),
    T(
        "train",
        "Which products cost more than 20 and are in stock? Return their names and prices.",
        "SELECT name, price FROM products WHERE price > 20 AND in_stock",
    ),
    T(
        "train",
        "List the ids of orders whose status is cancelled or returned.",
        "SELECT id FROM orders WHERE status IN ('cancelled', 'returned')",
    ),
    T(
        "train",
        "Which customers have no email address on file? Return their ids and names.",
        "SELECT id, name FROM customers WHERE email IS NULL",
        "null_handling",
    ),
    T(
        "train",
        "How many customers signed up during 2022?",
        "SELECT COUNT(*) FROM customers WHERE signup_date >= DATE '2022-01-01' AND signup_date < DATE '2023-01-01'",
        "date",
    ),
    T(
        "train",
        "What is the average price of products in the kitchen category?",
        "SELECT AVG(price) FROM products WHERE category = 'kitchen'",
    ),
    T(
        "train",
        "For each product category, how many products are there and what is the highest price? "
        "Return the category, the number of products and the maximum price.",
        "SELECT category, COUNT(*), MAX(price) FROM products GROUP BY category",
    ),
    T(
        "train",
        "Which categories have more than 5 products? Return the category and its number of products.",
        "SELECT category, COUNT(*) FROM products GROUP BY category HAVING COUNT(*) > 5",
    ),
    T(
        "train",
        "List each order id with the name of the customer who placed it, "
        "leaving out orders whose customer is not on record.",
        "SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id",
        "dangling_keys",
    ),
    T(
        "train",
        "List every order id with the name of the customer who placed it; keep orders whose customer "
        "is missing or unknown, with an empty (NULL) name.",
        "SELECT o.id, c.name FROM orders o LEFT JOIN customers c ON c.id = o.customer_id",
        "dangling_keys",
    ),
    T(
        "train",
        "Which customers have never placed an order? Return their ids and names.",
        "SELECT c.id, c.name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)",
        "null_handling",
    ),
    T(
        "train",
        "How many distinct customer ids appear on orders placed in 2023?",
        "SELECT COUNT(DISTINCT customer_id) FROM orders WHERE EXTRACT(year FROM order_date) = 2023",
        "date",
    ),
    T(
        "train",
        "List the distinct cities customers live in, leaving out missing cities.",
        "SELECT DISTINCT city FROM customers WHERE city IS NOT NULL",
        "null_handling",
    ),
    T(
        "train",
        "What is the revenue of each order, i.e. the sum of quantity times unit price over its items? "
        "Return the order id and the revenue.",
        "SELECT order_id, SUM(quantity * unit_price) FROM order_items GROUP BY order_id",
    ),
    T(
        "train",
        "List the five most expensive products, most expensive first, breaking ties by the lower product id. "
        "Return id, name and price.",
        "SELECT id, name, price FROM products ORDER BY price DESC, id LIMIT 5",
        "ties",
    ),
    T(
        "train",
        "List all product names with their prices, from the highest price to the lowest "
        "(products with equal prices in any order).",
        "SELECT name, price FROM products ORDER BY price DESC",
        "ties",
    ),
    T(
        "train",
        "For every customer who was referred by another customer on record, return the customer's name "
        "and the name of the customer who referred them.",
        "SELECT c.name, r.name FROM customers c JOIN customers r ON r.id = c.referred_by",
        "dangling_keys",
    ),
    T(
        "train",
        "Which products have never been ordered? Return their ids and names.",
        "SELECT id, name FROM products WHERE id NOT IN (SELECT product_id FROM order_items)",
    ),
    T(
        "train",
        "Return the names of customers who wrote at least one review with a rating of 5.",
        "SELECT name FROM customers WHERE id IN (SELECT customer_id FROM reviews WHERE rating = 5)",
        "null_handling",
    ),
    T(
        "train",
        "For each customer, count their orders, including customers with no orders (count 0). "
        "Return customer id, name and the number of orders.",
        "SELECT c.id, c.name, COUNT(o.id) FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.id, c.name",
    ),
    T(
        "train",
        "Label each product 'cheap' when its price is under 10, 'mid' when it is from 10 up to 50, "
        "and 'premium' above 50. Return the product name and the label.",
        "SELECT name, CASE WHEN price < 10 THEN 'cheap' WHEN price <= 50 THEN 'mid' ELSE 'premium' END FROM products",
    ),
    T(
        "train",
        "Which customer ids spent more than 500 in total over all their orders (sum of quantity times unit "
        "price)? Return the customer id and the total.",
        "WITH spend AS (SELECT o.customer_id, SUM(i.quantity * i.unit_price) AS total FROM orders o "
        "JOIN order_items i ON i.order_id = o.id GROUP BY o.customer_id) "
        "SELECT customer_id, total FROM spend WHERE total > 500",
    ),
    T(
        "train",
        "Which products cost more than the average product price? Return their names and prices.",
        "SELECT name, price FROM products WHERE price > (SELECT AVG(price) FROM products)",
    ),
    T(
        "train",
        "How many orders were placed in each year? Return the year and the number of orders.",
        "SELECT EXTRACT(year FROM order_date), COUNT(*) FROM orders GROUP BY EXTRACT(year FROM order_date)",
        "date",
    ),
    T(
        "train",
        "For orders that have shipped, what is the average number of days between the order date "
        "and the shipping date?",
        "SELECT AVG(shipped_date - order_date) FROM orders WHERE shipped_date IS NOT NULL",
        "date null_handling",
    ),
    T(
        "train",
        "For every supplier, how many products do they supply? Include suppliers with no products. "
        "Return the supplier id, name and the number of products.",
        "SELECT s.id, s.name, COUNT(p.id) FROM suppliers s LEFT JOIN products p ON p.supplier_id = s.id GROUP BY s.id, s.name",
    ),
    T(
        "train",
        "Which products have 'Lamp' in their name? Return id, name and category.",
        "SELECT id, name, category FROM products WHERE name LIKE '%Lamp%'",
    ),
    T(
        "train",
        "How many orders have no discount recorded?",
        "SELECT COUNT(*) FROM orders WHERE discount IS NULL",
        "null_handling",
    ),
    T(
        "train",
        "For each order status, what is the total quantity of items ordered? Return status and total quantity.",
        "SELECT o.status, SUM(i.quantity) FROM orders o JOIN order_items i ON i.order_id = o.id GROUP BY o.status",
    ),
    T(
        "train",
        "Which customer names are shared by more than one customer? Return the name and how many customers have it.",
        "SELECT name, COUNT(*) FROM customers GROUP BY name HAVING COUNT(*) > 1",
        "duplicates",
    ),
    T(
        "train",
        "For products with at least 3 reviews, return the product name and the average rating, highest average first.",
        "SELECT p.name, AVG(r.rating) AS avg_rating FROM products p JOIN reviews r ON r.product_id = p.id "
        "GROUP BY p.id, p.name HAVING COUNT(*) >= 3 ORDER BY avg_rating DESC",
        "ties",
    ),
    T(
        "train",
        "Which customers placed an order in 2021 and have also written a review? Return their ids and names.",
        "SELECT c.id, c.name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id "
        "AND o.order_date BETWEEN DATE '2021-01-01' AND DATE '2021-12-31') "
        "AND EXISTS (SELECT 1 FROM reviews r WHERE r.customer_id = c.id)",
        "date",
    ),
    T(
        "train",
        "List the orders of VIP customers that have not shipped yet. Return the order id and order date.",
        "SELECT o.id, o.order_date FROM orders o JOIN customers c ON c.id = o.customer_id "
        "WHERE c.is_vip AND o.shipped_date IS NULL",
        "null_handling",
    ),
    T(
        "train",
        "What is the total value (quantity times unit price) of the items sold in each product category? "
        "Count only items of products that are on record. Return category and total value.",
        "SELECT p.category, SUM(i.quantity * i.unit_price) FROM order_items i JOIN products p ON p.id = i.product_id "
        "GROUP BY p.category",
        "dangling_keys",
    ),
    T(
        "train",
        "Which order items refer to a product that is not on record? Return the order id and product id.",
        "SELECT i.order_id, i.product_id FROM order_items i LEFT JOIN products p ON p.id = i.product_id WHERE p.id IS NULL",
        "dangling_keys null_handling",
    ),
    # ---------------------------------------------------------------- heldout
    T(
        "heldout",
        "List the names and prices of products in the toys or games categories.",
        "SELECT name, price FROM products WHERE category = 'toys' OR category = 'games'",
    ),
    T(
        "heldout",
        "How many reviews have no comment?",
        "SELECT COUNT(*) FROM reviews WHERE comment IS NULL",
        "null_handling",
    ),
    T(
        "heldout",
        "For each supplier country, how many products are supplied by suppliers from that country? "
        "Return the country and the number of products (suppliers without a country form their own group).",
        "SELECT s.country, COUNT(*) FROM suppliers s JOIN products p ON p.supplier_id = s.id GROUP BY s.country",
        "null_handling",
    ),
    T(
        "heldout",
        "Which customers from Germany placed more than 2 orders? Return the customer id, name and number of orders.",
        "SELECT c.id, c.name, COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.id "
        "WHERE c.country = 'Germany' GROUP BY c.id, c.name HAVING COUNT(*) > 2",
    ),
    T(
        "heldout",
        "List the three most recent orders, newest first, breaking ties by the higher order id. "
        "Return the order id and order date.",
        "SELECT id, order_date FROM orders ORDER BY order_date DESC, id DESC LIMIT 3",
        "date ties",
    ),
    T(
        "heldout",
        "Which products have been reviewed but never ordered? Return their ids.",
        "SELECT DISTINCT product_id FROM reviews WHERE product_id NOT IN (SELECT product_id FROM order_items)",
    ),
    T(
        "heldout",
        "For every product, count its reviews, including products with no reviews. "
        "Return the product id, name and the number of reviews.",
        "SELECT p.id, p.name, COUNT(r.id) FROM products p LEFT JOIN reviews r ON r.product_id = p.id GROUP BY p.id, p.name",
    ),
    T(
        "heldout",
        "Classify each customer as 'new' (signed up in 2024), 'recent' (signed up in 2022 or 2023) or "
        "'established' (signed up before 2022). Return the customer id and the class.",
        "SELECT id, CASE WHEN signup_date >= DATE '2024-01-01' THEN 'new' WHEN signup_date >= DATE '2022-01-01' "
        "THEN 'recent' ELSE 'established' END FROM customers",
        "date",
    ),
    T(
        "heldout",
        "Which customer ids have written at least one review? Leave out anonymous reviews; list each id once.",
        "SELECT DISTINCT customer_id FROM reviews WHERE customer_id IS NOT NULL",
        "null_handling",
    ),
    T(
        "heldout",
        "What is the largest order revenue, where an order's revenue is the sum of quantity times unit price "
        "over its items?",
        "WITH revenue AS (SELECT order_id, SUM(quantity * unit_price) AS total FROM order_items GROUP BY order_id) "
        "SELECT MAX(total) FROM revenue",
    ),
    T(
        "heldout",
        "Which customers referred at least two other customers? Return the referrer's name and how many "
        "customers they referred.",
        "SELECT r.name, COUNT(*) FROM customers c JOIN customers r ON r.id = c.referred_by "
        "GROUP BY r.id, r.name HAVING COUNT(*) >= 2",
    ),
    T(
        "heldout",
        "Which products are priced exactly at the highest product price? Return their ids and names.",
        "SELECT id, name FROM products WHERE price = (SELECT MAX(price) FROM products)",
        "ties",
    ),
    # ---------------------------------------------------------------- shifted
    T(
        "shifted",
        "Rank the products by price within each category, highest price first; products with equal prices "
        "share a rank (with gaps after ties). Return category, product name, price and rank.",
        "SELECT category, name, price, RANK() OVER (PARTITION BY category ORDER BY price DESC) FROM products",
        "ties",
    ),
    T(
        "shifted",
        "Number each customer's orders by order date (1 = first order), breaking ties by order id. Return the "
        "customer id, order id, order date and the sequence number, for orders whose customer id is known.",
        "SELECT customer_id, id, order_date, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY order_date, id) "
        "FROM orders WHERE customer_id IS NOT NULL",
        "date",
    ),
    T(
        "shifted",
        "For each order, return its id, its revenue (sum of quantity times unit price) and the running total "
        "of revenue over all orders taken in order of order date and then order id.",
        "WITH revenue AS (SELECT o.id, o.order_date, SUM(i.quantity * i.unit_price) AS total FROM orders o "
        "JOIN order_items i ON i.order_id = o.id GROUP BY o.id, o.order_date) "
        "SELECT id, total, SUM(total) OVER (ORDER BY order_date, id) FROM revenue",
        "date",
    ),
    T(
        "shifted",
        "Which countries have both customers and suppliers?",
        "SELECT country FROM customers INTERSECT SELECT country FROM suppliers",
    ),
    T(
        "shifted",
        "List every country that has at least one customer or at least one supplier, each country once "
        "(leave out missing countries).",
        "SELECT country FROM customers UNION SELECT country FROM suppliers WHERE country IS NOT NULL",
        "null_handling",
    ),
    T(
        "shifted",
        "Which customer countries have no supplier based in them?",
        "SELECT country FROM customers EXCEPT SELECT country FROM suppliers",
    ),
    T(
        "shifted",
        "List every customer referred by customer 2, directly or through a chain of referrals. "
        "Return their ids and names.",
        "WITH RECURSIVE chain(id, name) AS (SELECT id, name FROM customers WHERE referred_by = 2 "
        "UNION SELECT c.id, c.name FROM customers c JOIN chain ON c.referred_by = chain.id) SELECT id, name FROM chain",
    ),
    T(
        "shifted",
        "For each product, return its name, category, price and the difference between its price and the "
        "average price of its category.",
        "SELECT name, category, price, price - AVG(price) OVER (PARTITION BY category) FROM products",
    ),
    T(
        "shifted",
        "For each month of 2023 that had orders, return the month number, the number of orders and the "
        "change from the previous such month (NULL for the first).",
        "WITH monthly AS (SELECT EXTRACT(month FROM order_date) AS month, COUNT(*) AS n FROM orders "
        "WHERE EXTRACT(year FROM order_date) = 2023 GROUP BY EXTRACT(month FROM order_date)) "
        "SELECT month, n, n - LAG(n) OVER (ORDER BY month) FROM monthly",
        "date",
    ),
    T(
        "shifted",
        "For each category, the two products (on record) with the most units sold, breaking ties by lower "
        "product id. Return the category, product id and units sold.",
        "WITH sold AS (SELECT p.category, p.id, SUM(i.quantity) AS units FROM products p JOIN order_items i "
        "ON i.product_id = p.id GROUP BY p.category, p.id) SELECT category, id, units FROM sold "
        "QUALIFY ROW_NUMBER() OVER (PARTITION BY category ORDER BY units DESC, id) <= 2",
        "ties",
    ),
    T(
        "shifted",
        "Which customer ids are VIPs or have written a review? List each id once, leaving out anonymous reviews.",
        "SELECT id FROM customers WHERE is_vip UNION SELECT customer_id FROM reviews WHERE customer_id IS NOT NULL",
        "null_handling",
    ),
    T(
        "shifted",
        "Which product ids appear in order items but are not in the products table?",
        "SELECT product_id FROM order_items EXCEPT SELECT id FROM products",
        "dangling_keys",
    ),
]

UNIVERSITY = [
    # ---------------------------------------------------------------- train
    T(
        "train",
        "List the names of international students who enrolled in 2020 or later.",
        "SELECT name FROM students WHERE is_international AND enrollment_year >= 2020",
    ),
    T(
        "train",
        "Which instructors earn at least 80000? Return their names and salaries.",
        "SELECT name, salary FROM instructors WHERE salary >= 80000",
    ),
    T(
        "train",
        "Which students have no GPA recorded? Return their ids and names.",
        "SELECT id, name FROM students WHERE gpa IS NULL",
        "null_handling",
    ),
    T(
        "train",
        "What is the average GPA of the students of each department id (students with no GPA do not count; students "
        "without a department form their own group)? Return the department id and the average GPA.",
        "SELECT department_id, AVG(gpa) FROM students GROUP BY department_id",
        "null_handling",
    ),
    T(
        "train",
        "How many students does each department have? Include departments with no students. "
        "Return the department name and the number of students.",
        "SELECT d.name, COUNT(s.id) FROM departments d LEFT JOIN students s ON s.department_id = d.id GROUP BY d.id, d.name",
    ),
    T(
        "train",
        "List each student's name with the name of their department, for students whose department is on record.",
        "SELECT s.name, d.name FROM students s JOIN departments d ON d.id = s.department_id",
        "dangling_keys",
    ),
    T(
        "train",
        "List every course code with the name of its instructor; keep courses with no instructor or an "
        "unknown one, with a NULL name.",
        "SELECT c.code, i.name FROM courses c LEFT JOIN instructors i ON i.id = c.instructor_id",
        "null_handling",
    ),
    T(
        "train",
        "Which courses have more than 8 enrollments? Return the course id and the number of enrollments.",
        "SELECT course_id, COUNT(*) FROM enrollments GROUP BY course_id HAVING COUNT(*) > 8",
    ),
    T(
        "train",
        "Which students never enrolled in any course? Return their ids and names.",
        "SELECT id, name FROM students WHERE id NOT IN (SELECT student_id FROM enrollments)",
    ),
    T(
        "train",
        "For every course that has a prerequisite on record, return the course code and the code of its prerequisite.",
        "SELECT c.code, p.code FROM courses c JOIN courses p ON p.id = c.prerequisite_id",
        "dangling_keys",
    ),
    T(
        "train",
        "How many enrollments received each grade? Enrollments without a grade form their own group. "
        "Return the grade and the count.",
        "SELECT grade, COUNT(*) FROM enrollments GROUP BY grade",
        "null_handling",
    ),
    T(
        "train",
        "What is the highest score recorded in each term? Return the term and the highest score.",
        "SELECT term, MAX(score) FROM enrollments GROUP BY term",
    ),
    T(
        "train",
        "Return the names of students whose advisor belongs to the Computer Science department.",
        "SELECT s.name FROM students s JOIN instructors i ON i.id = s.advisor_id JOIN departments d "
        "ON d.id = i.department_id WHERE d.name = 'Computer Science'",
    ),
    T(
        "train",
        "List the students born before 1998, oldest first. Return name and birth date.",
        "SELECT name, birth_date FROM students WHERE birth_date < DATE '1998-01-01' ORDER BY birth_date",
        "date",
    ),
    T(
        "train",
        "List the 10 students with the highest GPA among those who have one, highest first, breaking ties by "
        "the lower student id. Return id, name and GPA.",
        "SELECT id, name, gpa FROM students WHERE gpa IS NOT NULL ORDER BY gpa DESC, id LIMIT 10",
        "ties null_handling",
    ),
    T(
        "train",
        "Which buildings host at least one department? List each building once.",
        "SELECT DISTINCT building FROM departments WHERE building IS NOT NULL",
        "null_handling",
    ),
    T(
        "train",
        "Label each enrollment 'pass' when its score is at least 60, 'fail' when it is below 60 and 'pending' "
        "when there is no score. Return student id, course id, term and the label.",
        "SELECT student_id, course_id, term, CASE WHEN score IS NULL THEN 'pending' WHEN score >= 60 THEN 'pass' "
        "ELSE 'fail' END FROM enrollments",
        "null_handling",
    ),
    T(
        "train",
        "For each instructor, how many students do they advise? Include instructors who advise nobody. "
        "Return the instructor id, name and the number of advisees.",
        "SELECT i.id, i.name, COUNT(s.id) FROM instructors i LEFT JOIN students s ON s.advisor_id = i.id GROUP BY i.id, i.name",
    ),
    T(
        "train",
        "Which students have at least one enrollment graded 'A'? Return their ids and names.",
        "SELECT s.id, s.name FROM students s WHERE EXISTS (SELECT 1 FROM enrollments e WHERE e.student_id = s.id AND e.grade = 'A')",
    ),
    T(
        "train",
        "Which courses are taught by instructors hired before 2010? Return the course codes.",
        "SELECT code FROM courses WHERE instructor_id IN (SELECT id FROM instructors WHERE hire_date < DATE '2010-01-01')",
        "date",
    ),
    T(
        "train",
        "What is the average enrollment score per department of the course, counting only enrollments with a "
        "score? Return the department id and the average score.",
        "SELECT c.department_id, AVG(e.score) FROM enrollments e JOIN courses c ON c.id = e.course_id "
        "WHERE e.score IS NOT NULL GROUP BY c.department_id",
        "null_handling",
    ),
    T(
        "train",
        "Which departments pay their instructors more than 150000 in total? Return the department name and "
        "the total salary.",
        "SELECT d.name, SUM(i.salary) FROM departments d JOIN instructors i ON i.department_id = d.id "
        "GROUP BY d.id, d.name HAVING SUM(i.salary) > 150000",
    ),
    T(
        "train",
        "For each enrollment year, how many students enrolled and what is their average GPA? "
        "Return the year, the number of students and the average GPA.",
        "SELECT enrollment_year, COUNT(*), AVG(gpa) FROM students GROUP BY enrollment_year",
    ),
    T(
        "train",
        "Which students have a GPA above the average GPA of all students? Return their names and GPAs.",
        "SELECT name, gpa FROM students WHERE gpa > (SELECT AVG(gpa) FROM students)",
    ),
    T(
        "train",
        "How many enrollments were made in each calendar month (of the enrolment date), over all years? "
        "Return the month number and the count.",
        "SELECT EXTRACT(month FROM enrolled_on), COUNT(*) FROM enrollments GROUP BY EXTRACT(month FROM enrolled_on)",
        "date",
    ),
    T(
        "train",
        "Which student names are shared by more than one student? Return the name and how many students have it.",
        "SELECT name, COUNT(*) FROM students GROUP BY name HAVING COUNT(*) > 1",
        "duplicates",
    ),
    T(
        "train",
        "Which students have an average score of at least 85 over their scored enrollments? "
        "Return the student id and the average score.",
        "WITH averages AS (SELECT student_id, AVG(score) AS avg_score FROM enrollments WHERE score IS NOT NULL "
        "GROUP BY student_id) SELECT student_id, avg_score FROM averages WHERE avg_score >= 85",
    ),
    T(
        "train",
        "Which student ids have an enrollment in a course that is not on record? List each id once.",
        "SELECT DISTINCT e.student_id FROM enrollments e LEFT JOIN courses c ON c.id = e.course_id WHERE c.id IS NULL",
        "dangling_keys null_handling",
    ),
    T(
        "train",
        "Which instructors teach no course? Return their names.",
        "SELECT name FROM instructors WHERE id NOT IN (SELECT instructor_id FROM courses WHERE instructor_id IS NOT NULL)",
        "null_handling",
    ),
    T(
        "train",
        "Which courses are worth the maximum number of credits? Return their codes and titles.",
        "SELECT code, title FROM courses WHERE credits = (SELECT MAX(credits) FROM courses)",
        "ties",
    ),
    T(
        "train",
        "List the enrollments made during 2023: student id, course id and enrolment date.",
        "SELECT student_id, course_id, enrolled_on FROM enrollments WHERE EXTRACT(year FROM enrolled_on) = 2023",
        "date",
    ),
    T(
        "train",
        "Return the titles of the courses offered by the Mathematics or Physics departments.",
        "SELECT c.title FROM courses c JOIN departments d ON d.id = c.department_id WHERE d.name IN ('Mathematics', 'Physics')",
    ),
    T(
        "train",
        "List all instructors by salary, highest first (equal salaries in any order); leave out instructors "
        "with no salary. Return name and salary.",
        "SELECT name, salary FROM instructors WHERE salary IS NOT NULL ORDER BY salary DESC",
        "ties null_handling",
    ),
    T(
        "train",
        "Which courses have a code starting with 'CS'? Return code and title.",
        "SELECT code, title FROM courses WHERE code LIKE 'CS%'",
    ),
    # ---------------------------------------------------------------- heldout
    T(
        "heldout",
        "Which tenured instructors were hired after 2015? Return their names and hire dates.",
        "SELECT name, hire_date FROM instructors WHERE is_tenured AND hire_date > DATE '2015-12-31'",
        "date",
    ),
    T(
        "heldout",
        "How many students have no advisor?",
        "SELECT COUNT(*) FROM students WHERE advisor_id IS NULL",
        "null_handling",
    ),
    T(
        "heldout",
        "How many departments does each building host? Leave out departments without a building. "
        "Return the building and the count.",
        "SELECT building, COUNT(*) FROM departments WHERE building IS NOT NULL GROUP BY building",
        "null_handling",
    ),
    T(
        "heldout",
        "Which 5 course ids have the most enrollments? Most enrollments first, ties broken by lower course id. "
        "Return the course id and the number of enrollments.",
        "SELECT course_id, COUNT(*) AS n FROM enrollments GROUP BY course_id ORDER BY n DESC, course_id LIMIT 5",
        "ties",
    ),
    T(
        "heldout",
        "Which students took at least one course of the Computer Science department (department id 1)? "
        "Return their ids and names.",
        "SELECT id, name FROM students WHERE id IN (SELECT e.student_id FROM enrollments e JOIN courses c "
        "ON c.id = e.course_id WHERE c.department_id = 1)",
    ),
    T(
        "heldout",
        "Which departments have no instructors? Return the department names.",
        "SELECT d.name FROM departments d WHERE NOT EXISTS (SELECT 1 FROM instructors i WHERE i.department_id = d.id)",
    ),
    T(
        "heldout",
        "In how many distinct terms was each course id taken? Return the course id and the number of terms.",
        "SELECT course_id, COUNT(DISTINCT term) FROM enrollments GROUP BY course_id",
    ),
    T(
        "heldout",
        "List every student's name with their advisor's name, including students with no advisor or an "
        "unknown one (NULL advisor name).",
        "SELECT s.name, i.name FROM students s LEFT JOIN instructors i ON i.id = s.advisor_id",
        "null_handling dangling_keys",
    ),
    T(
        "heldout",
        "Classify students by GPA as 'honours' (3.5 or more), 'good' (3.0 up to 3.5), 'other' (below 3.0) or "
        "'unknown' (no GPA), and count the students in each class. Return the class and the count.",
        "SELECT CASE WHEN gpa IS NULL THEN 'unknown' WHEN gpa >= 3.5 THEN 'honours' WHEN gpa >= 3.0 THEN 'good' "
        "ELSE 'other' END AS class, COUNT(*) FROM students GROUP BY class",
        "null_handling",
    ),
    T(
        "heldout",
        "For each course whose prerequisite itself has a prerequisite, return the course code and the code of "
        "that second-level prerequisite.",
        "SELECT c.code, pp.code FROM courses c JOIN courses p ON p.id = c.prerequisite_id JOIN courses pp "
        "ON pp.id = p.prerequisite_id",
    ),
    T(
        "heldout",
        "Which terms had more enrollments than the average number of enrollments per term? "
        "Return the term and its number of enrollments.",
        "WITH per_term AS (SELECT term, COUNT(*) AS n FROM enrollments GROUP BY term) "
        "SELECT term, n FROM per_term WHERE n > (SELECT AVG(n) FROM per_term)",
    ),
    # ---------------------------------------------------------------- shifted
    T(
        "shifted",
        "Rank the students of each department by GPA, highest first, with equal GPAs sharing a rank and no "
        "gaps; leave out students without a GPA. Return department id, student name, GPA and the rank.",
        "SELECT department_id, name, gpa, DENSE_RANK() OVER (PARTITION BY department_id ORDER BY gpa DESC) "
        "FROM students WHERE gpa IS NOT NULL",
        "ties null_handling",
    ),
    T(
        "shifted",
        "List every course that is a direct or indirect prerequisite of course 15. Return the course ids.",
        "WITH RECURSIVE prereq(id) AS (SELECT prerequisite_id FROM courses WHERE id = 15 AND prerequisite_id IS NOT NULL "
        "UNION SELECT c.prerequisite_id FROM courses c JOIN prereq ON c.id = prereq.id WHERE c.prerequisite_id IS NOT NULL) "
        "SELECT id FROM prereq",
    ),
    T(
        "shifted",
        "Give every course its level in the prerequisite tree: 0 for courses without a prerequisite, 1 for "
        "courses whose prerequisite has none, and so on; courses whose chain reaches a course not on record are left "
        "out. Return the course id and the level.",
        "WITH RECURSIVE levels(id, level) AS (SELECT id, 0 FROM courses WHERE prerequisite_id IS NULL "
        "UNION ALL SELECT c.id, levels.level + 1 FROM courses c JOIN levels ON c.prerequisite_id = levels.id) "
        "SELECT id, level FROM levels",
        "dangling_keys",
    ),
    T(
        "shifted",
        "For each scored enrollment, return student id, course id, term, score and the average score of the "
        "same course in the same term.",
        "SELECT student_id, course_id, term, score, AVG(score) OVER (PARTITION BY course_id, term) FROM enrollments "
        "WHERE score IS NOT NULL",
        "null_handling",
    ),
    T(
        "shifted",
        "Which names belong to both a student and an instructor?",
        "SELECT name FROM students INTERSECT SELECT name FROM instructors",
        "duplicates",
    ),
    T(
        "shifted",
        "List all distinct names of people at the university, students and instructors together.",
        "SELECT name FROM students UNION SELECT name FROM instructors",
        "duplicates",
    ),
    T(
        "shifted",
        "Which student names are not the name of any instructor?",
        "SELECT name FROM students EXCEPT SELECT name FROM instructors",
        "duplicates",
    ),
    T(
        "shifted",
        "Number each student's enrollments by enrolment date (1 = earliest), breaking ties by course id. "
        "Return student id, course id, enrolment date and the number.",
        "SELECT student_id, course_id, enrolled_on, ROW_NUMBER() OVER (PARTITION BY student_id ORDER BY enrolled_on, course_id) "
        "FROM enrollments",
        "date",
    ),
    T(
        "shifted",
        "For each department with a budget, return its name, budget and the share of the total budget of all "
        "departments (budget divided by the total).",
        "SELECT name, budget, budget / SUM(budget) OVER () FROM departments WHERE budget IS NOT NULL",
        "null_handling",
    ),
    T(
        "shifted",
        "For each enrollment year, return the year, the number of students who enrolled that year and the "
        "running total of students up to and including that year.",
        "SELECT enrollment_year, COUNT(*), SUM(COUNT(*)) OVER (ORDER BY enrollment_year) FROM students GROUP BY enrollment_year",
    ),
    T(
        "shifted",
        "Which courses have one of the three highest average scores (all courses tied with them included)? "
        "Return the course id and the average score.",
        "WITH averages AS (SELECT course_id, AVG(score) AS avg_score FROM enrollments WHERE score IS NOT NULL "
        "GROUP BY course_id) SELECT course_id, avg_score FROM averages "
        "QUALIFY DENSE_RANK() OVER (ORDER BY avg_score DESC) <= 3",
        "ties",
    ),
    T(
        "shifted",
        "List the ids of all people who advise or teach: instructor ids that appear as a student's advisor or "
        "as a course's instructor, each once.",
        "SELECT advisor_id FROM students WHERE advisor_id IS NOT NULL UNION SELECT instructor_id FROM courses "
        "WHERE instructor_id IS NOT NULL",
        "null_handling",
    ),
]

COMPANY = [
    # ---------------------------------------------------------------- train
    T(
        "train",
        "List the first and last names of all remote employees.",
        "SELECT first_name, last_name FROM employees WHERE is_remote",
    ),
    T(
        "train",
        "Which employees earn more than 100000? Return id, first name, last name and salary.",
        "SELECT id, first_name, last_name, salary FROM employees WHERE salary > 100000",
    ),
    T(
        "train",
        "Which employees have no bonus recorded? Return their ids.",
        "SELECT id FROM employees WHERE bonus IS NULL",
        "null_handling",
    ),
    T(
        "train",
        "What is the average salary for each job title? Return the job title and the average salary.",
        "SELECT job_title, AVG(salary) FROM employees GROUP BY job_title",
    ),
    T(
        "train",
        "Which departments have more than 5 employees? Return the department name and the number of employees.",
        "SELECT d.name, COUNT(*) FROM departments d JOIN employees e ON e.department_id = d.id GROUP BY d.id, d.name "
        "HAVING COUNT(*) > 5",
    ),
    T(
        "train",
        "For each employee whose manager is on record, return the employee's first and last name and the "
        "manager's first and last name.",
        "SELECT e.first_name, e.last_name, m.first_name, m.last_name FROM employees e JOIN employees m ON m.id = e.manager_id",
        "dangling_keys",
    ),
    T(
        "train",
        "List every employee id with their manager's last name, including employees with no manager or whose "
        "manager is not on record (NULL then).",
        "SELECT e.id, m.last_name FROM employees e LEFT JOIN employees m ON m.id = e.manager_id",
        "dangling_keys null_handling",
    ),
    T(
        "train",
        "Who reports directly to the employee who has no manager? Return their ids and job titles.",
        "SELECT id, job_title FROM employees WHERE manager_id = (SELECT id FROM employees WHERE manager_id IS NULL)",
        "null_handling",
    ),
    T(
        "train",
        "Which employees manage nobody, i.e. no employee has them as manager? Return their ids.",
        "SELECT id FROM employees e WHERE NOT EXISTS (SELECT 1 FROM employees r WHERE r.manager_id = e.id)",
        "null_handling",
    ),
    T(
        "train",
        "Which employees are managers, i.e. have at least one direct report? Return their ids and last names.",
        "SELECT id, last_name FROM employees WHERE id IN (SELECT manager_id FROM employees)",
        "null_handling",
    ),
    T(
        "train",
        "Which employees earn at least as much as their manager? Return the employee id, their salary and their "
        "manager's salary.",
        "SELECT e.id, e.salary, m.salary FROM employees e JOIN employees m ON m.id = e.manager_id WHERE e.salary >= m.salary",
    ),
    T(
        "train",
        "How many direct reports does each manager have? Return the manager's id, last name and the number of "
        "direct reports.",
        "SELECT m.id, m.last_name, COUNT(*) FROM employees e JOIN employees m ON m.id = e.manager_id GROUP BY m.id, m.last_name",
    ),
    T(
        "train",
        "What is the total number of assigned hours per project, including projects with no assignments? "
        "Return the project id, name and total hours.",
        "SELECT p.id, p.name, SUM(a.hours) FROM projects p LEFT JOIN assignments a ON a.project_id = p.id GROUP BY p.id, p.name",
    ),
    T(
        "train",
        "Which employees are not assigned to any project? Return their ids, first and last names.",
        "SELECT id, first_name, last_name FROM employees e WHERE NOT EXISTS (SELECT 1 FROM assignments a WHERE a.employee_id = e.id)",
    ),
    T(
        "train",
        "Which projects are still running, i.e. have no end date? Return their names and start dates.",
        "SELECT name, start_date FROM projects WHERE end_date IS NULL",
        "null_handling",
    ),
    T(
        "train",
        "Which projects started in 2021? Return their ids and names.",
        "SELECT id, name FROM projects WHERE start_date BETWEEN DATE '2021-01-01' AND DATE '2021-12-31'",
        "date",
    ),
    T(
        "train",
        "How many days did each finished project last (end date minus start date)? Return project id and days.",
        "SELECT id, end_date - start_date FROM projects WHERE end_date IS NOT NULL",
        "date null_handling",
    ),
    T(
        "train",
        "Who are the three highest-paid employees? Highest salary first, ties broken by the lower id. "
        "Return id, last name and salary.",
        "SELECT id, last_name, salary FROM employees ORDER BY salary DESC, id LIMIT 3",
        "ties",
    ),
    T(
        "train",
        "List all employees by salary, highest first (equal salaries in any order). Return id and salary.",
        "SELECT id, salary FROM employees ORDER BY salary DESC",
        "ties",
    ),
    T(
        "train",
        "Which distinct job titles exist in the Engineering department?",
        "SELECT DISTINCT e.job_title FROM employees e JOIN departments d ON d.id = e.department_id WHERE d.name = 'Engineering'",
    ),
    T(
        "train",
        "Put each employee in a salary band: 'low' under 75000, 'medium' from 75000 up to 150000, 'high' above "
        "150000. Return the employee id and the band.",
        "SELECT id, CASE WHEN salary < 75000 THEN 'low' WHEN salary <= 150000 THEN 'medium' ELSE 'high' END FROM employees",
    ),
    T(
        "train",
        "Which employees were hired in the same year as their manager? Return the employee id and the manager id.",
        "SELECT e.id, m.id FROM employees e JOIN employees m ON m.id = e.manager_id "
        "WHERE EXTRACT(year FROM e.hire_date) = EXTRACT(year FROM m.hire_date)",
        "date",
    ),
    T(
        "train",
        "Which department ids have an average salary above the company-wide average salary (employees without a "
        "department form their own group)? Return the department id and its average salary.",
        "SELECT department_id, AVG(salary) FROM employees GROUP BY department_id "
        "HAVING AVG(salary) > (SELECT AVG(salary) FROM employees)",
    ),
    T(
        "train",
        "Which projects have more than 5 people assigned? Return the project id and the number of people.",
        "WITH headcount AS (SELECT project_id, COUNT(*) AS n FROM assignments GROUP BY project_id) "
        "SELECT project_id, n FROM headcount WHERE n > 5",
    ),
    T(
        "train",
        "Which employees belong to a department that is not on record? Return their ids and department ids.",
        "SELECT e.id, e.department_id FROM employees e LEFT JOIN departments d ON d.id = e.department_id "
        "WHERE e.department_id IS NOT NULL AND d.id IS NULL",
        "dangling_keys null_handling",
    ),
    T(
        "train",
        "What is each employee's total compensation, salary plus bonus, counting a missing bonus as 0? "
        "Return the id and the total.",
        "SELECT id, salary + COALESCE(bonus, 0) FROM employees",
        "null_handling",
    ),
    T(
        "train",
        "How many employees were hired in each year from 2015 on? Return the year and the count.",
        "SELECT EXTRACT(year FROM hire_date) AS year, COUNT(*) FROM employees WHERE hire_date >= DATE '2015-01-01' "
        "GROUP BY year",
        "date",
    ),
    T(
        "train",
        "For every department, how many projects does it run and what is their total budget? Include departments "
        "with no projects. Return the department name, number of projects and total budget.",
        "SELECT d.name, COUNT(p.id), SUM(p.budget) FROM departments d LEFT JOIN projects p ON p.department_id = d.id "
        "GROUP BY d.id, d.name",
    ),
    T(
        "train",
        "Which employees have no email on file or have the last name 'Smith'? Return their ids.",
        "SELECT id FROM employees WHERE email IS NULL OR last_name = 'Smith'",
        "null_handling",
    ),
    T(
        "train",
        "Which employees lead at least one project (role 'lead')? Return their ids and last names.",
        "SELECT id, last_name FROM employees WHERE id IN (SELECT employee_id FROM assignments WHERE role = 'lead')",
    ),
    T(
        "train",
        "Which first names are shared by more than one employee? Return the first name and the number of employees.",
        "SELECT first_name, COUNT(*) FROM employees GROUP BY first_name HAVING COUNT(*) > 1",
        "duplicates",
    ),
    T(
        "train",
        "For each project lead on record, return the project name and the lead's first and last name.",
        "SELECT p.name, e.first_name, e.last_name FROM assignments a JOIN projects p ON p.id = a.project_id "
        "JOIN employees e ON e.id = a.employee_id WHERE a.role = 'lead'",
        "dangling_keys",
    ),
    T(
        "train",
        "Which employees' last names contain the letters 'an'? Return id and last name.",
        "SELECT id, last_name FROM employees WHERE last_name LIKE '%an%'",
    ),
    T(
        "train",
        "Which employees do not work in department 1? Employees without a department do not count. Return their ids.",
        "SELECT id FROM employees WHERE department_id <> 1",
        "null_handling",
    ),
    # ---------------------------------------------------------------- heldout
    T(
        "heldout",
        "Which employees of the Sales department were hired after 2019? Return id and hire date.",
        "SELECT e.id, e.hire_date FROM employees e JOIN departments d ON d.id = e.department_id "
        "WHERE d.name = 'Sales' AND e.hire_date >= DATE '2020-01-01'",
        "date",
    ),
    T(
        "heldout",
        "How many employees have no department?",
        "SELECT COUNT(*) FROM employees WHERE department_id IS NULL",
        "null_handling",
    ),
    T(
        "heldout",
        "What is the highest salary in each department id (employees without a department form their own group)? "
        "Return department id and the highest salary.",
        "SELECT department_id, MAX(salary) FROM employees GROUP BY department_id",
    ),
    T(
        "heldout",
        "Which managers have more than 3 direct reports? Return the manager id and the number of reports.",
        "SELECT m.id, COUNT(*) FROM employees e JOIN employees m ON m.id = e.manager_id GROUP BY m.id HAVING COUNT(*) > 3",
    ),
    T(
        "heldout",
        "Who are the five most recently hired employees? Most recent first, ties broken by the higher id. "
        "Return id and hire date.",
        "SELECT id, hire_date FROM employees ORDER BY hire_date DESC, id DESC LIMIT 5",
        "date ties",
    ),
    T(
        "heldout",
        "Which projects have nobody assigned? Return their ids and names.",
        "SELECT id, name FROM projects p WHERE NOT EXISTS (SELECT 1 FROM assignments a WHERE a.project_id = p.id)",
    ),
    T(
        "heldout",
        "For each employee in a department on record, return their id, the department name and their manager's "
        "last name (NULL when there is no manager on record).",
        "SELECT e.id, d.name, m.last_name FROM employees e JOIN departments d ON d.id = e.department_id "
        "LEFT JOIN employees m ON m.id = e.manager_id",
        "null_handling dangling_keys",
    ),
    T(
        "heldout",
        "Which employees have a bonus larger than the average bonus? Return id and bonus.",
        "SELECT id, bonus FROM employees WHERE bonus > (SELECT AVG(bonus) FROM employees)",
        "null_handling",
    ),
    T(
        "heldout",
        "How many distinct roles are there on each project? Return project id and the number of roles.",
        "SELECT project_id, COUNT(DISTINCT role) FROM assignments GROUP BY project_id",
    ),
    T(
        "heldout",
        "Mark each project 'ongoing' when it has no end date and 'finished' otherwise. Return name and status.",
        "SELECT name, CASE WHEN end_date IS NULL THEN 'ongoing' ELSE 'finished' END FROM projects",
        "null_handling",
    ),
    T(
        "heldout",
        "Which employees have more than 50 assigned hours in total over all projects? Return id and total hours.",
        "WITH totals AS (SELECT employee_id, SUM(hours) AS total FROM assignments GROUP BY employee_id) "
        "SELECT employee_id, total FROM totals WHERE total > 50",
    ),
    T(
        "heldout",
        "Which employees have a manager whose id is not among the employees (a manager who has left)? "
        "Return the employee id and the manager id.",
        "SELECT id, manager_id FROM employees WHERE manager_id NOT IN (SELECT id FROM employees)",
        "dangling_keys",
    ),
    # ---------------------------------------------------------------- shifted
    T(
        "shifted",
        "List everyone in the reporting line under employee 4, directly or indirectly. Return their ids and "
        "job titles.",
        "WITH RECURSIVE team(id, job_title) AS (SELECT id, job_title FROM employees WHERE manager_id = 4 "
        "UNION ALL SELECT e.id, e.job_title FROM employees e JOIN team ON e.manager_id = team.id) SELECT id, job_title FROM team",
    ),
    T(
        "shifted",
        "Give each employee their level in the hierarchy: 0 for the employee with no manager, 1 for their "
        "direct reports, and so on (employees cut off from the top by a missing manager are left out). Return id and level.",
        "WITH RECURSIVE levels(id, level) AS (SELECT id, 0 FROM employees WHERE manager_id IS NULL "
        "UNION ALL SELECT e.id, levels.level + 1 FROM employees e JOIN levels ON e.manager_id = levels.id) "
        "SELECT id, level FROM levels",
        "dangling_keys",
    ),
    T(
        "shifted",
        "List the chain of command above employee 46: their manager, that manager's manager, and so on up to "
        "the top. Return the ids.",
        "WITH RECURSIVE chain(id) AS (SELECT manager_id FROM employees WHERE id = 46 "
        "UNION ALL SELECT e.manager_id FROM employees e JOIN chain ON e.id = chain.id WHERE e.manager_id IS NOT NULL) "
        "SELECT id FROM chain",
    ),
    T(
        "shifted",
        "Rank employees by salary within their department id, highest first; equal salaries share a rank (with "
        "gaps after ties). Return department id, employee id, salary and rank.",
        "SELECT department_id, id, salary, RANK() OVER (PARTITION BY department_id ORDER BY salary DESC) FROM employees",
        "ties",
    ),
    T(
        "shifted",
        "For each employee, return id, department id, salary and how much their salary differs from the "
        "average salary of their department id.",
        "SELECT id, department_id, salary, salary - AVG(salary) OVER (PARTITION BY department_id) FROM employees",
    ),
    T(
        "shifted",
        "For each employee, return id, hire date and how many employees had been hired up to and including "
        "that date (a running count over hire dates; employees hired the same day count together).",
        "SELECT id, hire_date, COUNT(*) OVER (ORDER BY hire_date) FROM employees",
        "date ties",
    ),
    T(
        "shifted",
        "For each employee with a department, return id, department id, hire date and the hire date of the "
        "previous hire in the same department (by hire date, ties broken by id; NULL for the first).",
        "SELECT id, department_id, hire_date, LAG(hire_date) OVER (PARTITION BY department_id ORDER BY hire_date, id) "
        "FROM employees WHERE department_id IS NOT NULL",
        "date",
    ),
    T(
        "shifted",
        "Which employee ids are managers (someone reports to them) or project leads? List each id once.",
        "SELECT manager_id FROM employees WHERE manager_id IS NOT NULL UNION SELECT employee_id FROM assignments "
        "WHERE role = 'lead'",
        "null_handling",
    ),
    T(
        "shifted",
        "Which employee ids are both managers (someone reports to them) and leads of at least one project?",
        "SELECT manager_id FROM employees INTERSECT SELECT employee_id FROM assignments WHERE role = 'lead'",
    ),
    T(
        "shifted",
        "Which employee ids appear in assignments but are not in the employees table?",
        "SELECT employee_id FROM assignments EXCEPT SELECT id FROM employees",
        "dangling_keys",
    ),
    T(
        "shifted",
        "Who earns the highest salary in each department id? Include everyone tied for the top. "
        "Return department id, employee id and salary.",
        "SELECT department_id, id, salary FROM employees "
        "QUALIFY RANK() OVER (PARTITION BY department_id ORDER BY salary DESC) = 1",
        "ties",
    ),
    T(
        "shifted",
        "For each of the employees directly under the employee with no manager, how many people are in their "
        "reporting line, at every level below them? Return that employee's id and the count (0 when nobody).",
        "WITH RECURSIVE tree(top, id) AS (SELECT d.id, e.id FROM employees d JOIN employees e ON e.manager_id = d.id "
        "WHERE d.manager_id = (SELECT id FROM employees WHERE manager_id IS NULL) "
        "UNION ALL SELECT tree.top, e.id FROM employees e JOIN tree ON e.manager_id = tree.id) "
        "SELECT d.id, COUNT(tree.id) FROM employees d LEFT JOIN tree ON tree.top = d.id "
        "WHERE d.manager_id = (SELECT id FROM employees WHERE manager_id IS NULL) GROUP BY d.id",
    ),
]

SUITE = {"shop": SHOP, "university": UNIVERSITY, "company": COMPANY}

# ---------------------------------------------------------------------------------------
# constructs
# ---------------------------------------------------------------------------------------


def _source_tables(select: exp.Select) -> list[str]:
    sources = [select.args.get("from_") and select.args["from_"].this]
    sources += [join.this for join in select.args.get("joins") or []]
    return [s.name for s in sources if isinstance(s, exp.Table)]


def constructs(sql: str, tags: str) -> list[str]:
    """What the gold uses, read from its syntax tree (hand tags add what syntax does not show)."""
    tree = sqlglot.parse_one(sql, read="duckdb")
    found = set(tags.split()) - {"empty_ok"}
    if tree.find(exp.Where):
        found.add("filter")
    for join in tree.find_all(exp.Join):
        found.add("outer_join" if join.side in ("LEFT", "RIGHT", "FULL") else "inner_join")
    for select in tree.find_all(exp.Select):
        names = _source_tables(select)
        if len(names) != len(set(names)):
            found.add("self_join")
    windows = list(tree.find_all(exp.Window))
    if windows:
        found.add("window")
    for agg in tree.find_all(exp.AggFunc):
        if not isinstance(agg.parent, exp.Window):
            found.add("aggregate")
    for node_type, name in (
        (exp.Group, "group_by"),
        (exp.Having, "having"),
        (exp.Limit, "limit"),
        (exp.Case, "case"),
        (exp.Exists, "exists"),
        (exp.With, "cte"),
        (exp.Like, "like"),
        (exp.Coalesce, "null_handling"),
    ):
        if tree.find(node_type):
            found.add(name)
    if any(not order.find_ancestor(exp.Window) for order in tree.find_all(exp.Order)):
        found.add("order_by")
    if (
        tree.find(exp.Distinct)
        or tree.find(exp.Union, exp.Intersect, exp.Except)
        and any(s.args.get("distinct") for s in tree.find_all(exp.Union, exp.Intersect, exp.Except))
    ):
        found.add("distinct")
    if tree.find(exp.Union, exp.Intersect, exp.Except):
        found.add("set_operation")
    if any(w.args.get("recursive") for w in tree.find_all(exp.With)):
        found.add("recursive_cte")
    if any(isinstance(e.parent, exp.Not) for e in tree.find_all(exp.Exists)):
        found.add("not_exists")
    for node in tree.find_all(exp.In):
        if node.args.get("query"):
            found.add("not_in" if isinstance(node.parent, exp.Not) else "in_subquery")
    for sub in tree.find_all(exp.Subquery):
        if not isinstance(sub.parent, (exp.In, exp.Exists, exp.From, exp.Join)):
            found.add("scalar_subquery")
    for sub in tree.find_all(exp.Select):  # DuckDB: WHERE x = (SELECT ...) parses as a bare Select
        if isinstance(sub.parent, (exp.EQ, exp.GT, exp.LT, exp.GTE, exp.LTE, exp.NEQ)):
            found.add("scalar_subquery")
    if tree.find(exp.Is):
        found.add("null_handling")
    return sorted(found)


# ---------------------------------------------------------------------------------------
# build and check
# ---------------------------------------------------------------------------------------


def build_tasks() -> list[dict]:
    tasks, n = [], 0
    for schema, entries in SUITE.items():
        for entry in entries:
            n += 1
            tasks.append(
                {
                    "id": f"sql-{n:04d}",
                    "domain": "sql",
                    "prompt": entry.question,
                    "reference": entry.sql,
                    "split": entry.split,
                    "metadata": {"schema": schema, "constructs": constructs(entry.sql, entry.tags)},
                    "_empty_ok": entry.empty or "empty_ok" in entry.tags.split(),
                }
            )
    return tasks


def check(tasks: list[dict]) -> list[str]:
    problems = []
    with tempfile.TemporaryDirectory() as cache:
        cons = {name: duckdb.connect(str(materialise(name, Path(cache))), read_only=True) for name in SCHEMA_NAMES}
        try:
            for task in tasks:
                con = cons[task["metadata"]["schema"]]
                try:
                    rows = con.execute(task["reference"]).fetchall()
                except duckdb.Error as exc:
                    problems.append(f"{task['id']}: gold fails: {exc}")
                    continue
                if not rows and not task["_empty_ok"]:
                    problems.append(f"{task['id']}: gold returns no rows: {task['reference']}")
        finally:
            for con in cons.values():
                con.close()
    train = {c for t in tasks if t["split"] == "train" for c in t["metadata"]["constructs"]}
    heldout = {c for t in tasks if t["split"] == "heldout" for c in t["metadata"]["constructs"]}
    for construct in SHIFTED_CONSTRUCTS:
        if construct in train or construct in heldout:
            problems.append(f"shifted construct {construct!r} appears in train or heldout")
    for task in tasks:
        if task["split"] == "shifted" and not set(SHIFTED_CONSTRUCTS) & set(task["metadata"]["constructs"]):
            problems.append(f"{task['id']}: shifted task without a shifted construct")
    seen = Counter(t["prompt"] for t in tasks)
    problems += [f"duplicate question: {q}" for q, n in seen.items() if n > 1]
    return problems


def render(tasks: list[dict]) -> str:
    lines = []
    for task in tasks:
        public = {k: v for k, v in task.items() if not k.startswith("_")}
        lines.append(json.dumps(public, ensure_ascii=False, sort_keys=False))
    return "\n".join(lines) + "\n"


def summary(tasks: list[dict]) -> str:
    by = Counter((t["metadata"]["schema"], t["split"]) for t in tasks)
    constructs_count = Counter(c for t in tasks for c in t["metadata"]["constructs"])
    lines = [f"{len(tasks)} tasks"]
    lines += [
        f"  {schema:11s} " + "  ".join(f"{split} {by[schema, split]}" for split in ("train", "heldout", "shifted"))
        for schema in SUITE
    ]
    lines.append("  constructs: " + ", ".join(f"{c} {n}" for c, n in sorted(constructs_count.items())))
    return "\n".join(lines)


def main(argv=None) -> int:
    tasks = build_tasks()
    problems = check(tasks)
    if problems:  # a gold that errors or returns nothing: never write such a suite
        print("\n".join(problems), file=sys.stderr)
        return 1
    return write_or_check(
        __doc__.splitlines()[0],
        OUT,
        "scripts/make_sql_suite.py",
        lambda: render(tasks),
        argv,
        summary=lambda: summary(tasks),
    )


if __name__ == "__main__":
    sys.exit(main())
