-- A company with a management hierarchy (employees.manager_id points to employees.id).
-- Foreign keys are recorded as comments, not constraints: the fixture keeps dangling keys on
-- purpose (a manager who has left, assignments to cancelled projects).

CREATE TABLE departments (
    id INTEGER PRIMARY KEY,
    name VARCHAR NOT NULL,
    location VARCHAR,
    budget DECIMAL(12,2)
);

CREATE TABLE employees (
    id INTEGER PRIMARY KEY,
    first_name VARCHAR NOT NULL,
    last_name VARCHAR NOT NULL,
    email VARCHAR,
    department_id INTEGER, -- references departments(id)
    manager_id INTEGER, -- references employees(id)
    job_title VARCHAR NOT NULL,
    salary DECIMAL(10,2) NOT NULL,
    bonus DOUBLE,
    hire_date DATE NOT NULL,
    is_remote BOOLEAN NOT NULL
);

CREATE TABLE projects (
    id INTEGER PRIMARY KEY,
    name VARCHAR NOT NULL,
    department_id INTEGER, -- references departments(id)
    start_date DATE NOT NULL,
    end_date DATE,
    budget DECIMAL(12,2)
);

CREATE TABLE assignments (
    employee_id INTEGER NOT NULL, -- references employees(id)
    project_id INTEGER NOT NULL, -- references projects(id)
    role VARCHAR NOT NULL,
    hours DOUBLE,
    PRIMARY KEY (employee_id, project_id)
);
