-- Java HashMaps with more than 1,000 entries, largest retained first, with the path that holds each (HPROF).
SELECT m.id, m.size AS entries, o.retained, path(m.id) AS held_by
FROM fields('java.util.HashMap') m
JOIN objects o ON o.n = m.n
WHERE m.size > 1000
ORDER BY o.retained DESC NULLS LAST
LIMIT 20
