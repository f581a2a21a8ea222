-- The GC roots by kind, with the bytes the objects they hold retain.
SELECT r.kind, count(*) AS roots, sum(o.retained) AS retained
FROM roots r JOIN objects o ON o.n = r.n
GROUP BY r.kind
ORDER BY retained DESC NULLS LAST
