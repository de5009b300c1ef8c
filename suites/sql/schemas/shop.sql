-- An online shop. Foreign keys are recorded as comments, not constraints: the fixture keeps
-- dangling keys on purpose (orders of deleted customers, items of withdrawn products).

CREATE TABLE suppliers (
    id INTEGER PRIMARY KEY,
    name VARCHAR NOT NULL,
    country VARCHAR,
    rating DOUBLE
);

CREATE TABLE customers (
    id INTEGER PRIMARY KEY,
    name VARCHAR NOT NULL,
    email VARCHAR,
    city VARCHAR,
    country VARCHAR NOT NULL,
    signup_date DATE NOT NULL,
    is_vip BOOLEAN NOT NULL,
    referred_by INTEGER -- references customers(id)
);

CREATE TABLE products (
    id INTEGER PRIMARY KEY,
    name VARCHAR NOT NULL,
    category VARCHAR NOT NULL,
    price DECIMAL(10,2) NOT NULL,
    weight_kg DOUBLE,
    in_stock BOOLEAN NOT NULL,
    supplier_id INTEGER -- references suppliers(id)
);

CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER, -- references customers(id)
    order_date DATE NOT NULL,
    status VARCHAR NOT NULL,
    shipped_date DATE,
    discount DOUBLE
);

CREATE TABLE order_items (
    order_id INTEGER NOT NULL, -- references orders(id)
    product_id INTEGER NOT NULL, -- references products(id)
    quantity INTEGER NOT NULL,
    unit_price DECIMAL(10,2) NOT NULL,
    PRIMARY KEY (order_id, product_id)
);

CREATE TABLE reviews (
    id INTEGER PRIMARY KEY,
    product_id INTEGER NOT NULL, -- references products(id)
    customer_id INTEGER, -- references customers(id)
    rating INTEGER NOT NULL,
    review_date DATE NOT NULL,
    comment VARCHAR
);
