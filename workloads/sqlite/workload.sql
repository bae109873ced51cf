CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 200000)
INSERT INTO t SELECT i, printf('row-%08d-%s', i, hex(i*7919 % 65521)), (i % 977) * 1.5 FROM n;
CREATE INDEX tb ON t(b);
CREATE INDEX tc ON t(c);
SELECT count(*), sum(a), total(c), max(b), min(b) FROM t;
SELECT c, count(*) FROM t GROUP BY c ORDER BY count(*) DESC, c LIMIT 5;
SELECT substr(b, 1, 12), length(b) FROM t WHERE b LIKE 'row-0001%' ORDER BY b DESC LIMIT 3;
CREATE TABLE u AS SELECT a % 1000 AS k, group_concat(a, ',') AS g FROM t GROUP BY a % 1000;
SELECT k, length(g) FROM u ORDER BY length(g) DESC, k LIMIT 3;
SELECT count(*) FROM t JOIN u ON t.a % 1000 = u.k WHERE t.c > 700;
WITH RECURSIVE fib(x, y, n) AS (SELECT 0, 1, 0 UNION ALL SELECT y, x + y, n + 1 FROM fib WHERE n < 80)
SELECT max(y) FROM fib;
SELECT json_group_array(a) FROM (SELECT a FROM t WHERE a % 40000 = 0);
UPDATE t SET c = c * 2 WHERE a % 3 = 0;
DELETE FROM t WHERE a % 5 = 0;
SELECT count(*), total(c) FROM t;
VACUUM;
PRAGMA integrity_check;
SELECT sqlite_version();
