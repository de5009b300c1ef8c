-- A university. Foreign keys are recorded as comments, not constraints: the fixture keeps
-- dangling keys on purpose (students of closed departments, enrollments in dropped courses).

CREATE TABLE departments (
    id INTEGER PRIMARY KEY,
    name VARCHAR NOT NULL,
    building VARCHAR,
    budget DECIMAL(12,2)
);

CREATE TABLE instructors (
    id INTEGER PRIMARY KEY,
    name VARCHAR NOT NULL,
    department_id INTEGER, -- references departments(id)
    salary DECIMAL(10,2),
    hire_date DATE NOT NULL,
    is_tenured BOOLEAN NOT NULL
);

CREATE TABLE students (
    id INTEGER PRIMARY KEY,
    name VARCHAR NOT NULL,
    department_id INTEGER, -- references departments(id)
    advisor_id INTEGER, -- references instructors(id)
    enrollment_year INTEGER NOT NULL,
    gpa DOUBLE,
    birth_date DATE,
    is_international BOOLEAN NOT NULL
);

CREATE TABLE courses (
    id INTEGER PRIMARY KEY,
    code VARCHAR NOT NULL,
    title VARCHAR NOT NULL,
    department_id INTEGER, -- references departments(id)
    credits INTEGER NOT NULL,
    instructor_id INTEGER, -- references instructors(id)
    prerequisite_id INTEGER -- references courses(id)
);

CREATE TABLE enrollments (
    student_id INTEGER NOT NULL, -- references students(id)
    course_id INTEGER NOT NULL, -- references courses(id)
    term VARCHAR NOT NULL,
    enrolled_on DATE NOT NULL,
    grade VARCHAR,
    score DOUBLE,
    PRIMARY KEY (student_id, course_id, term)
);
