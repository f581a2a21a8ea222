-- The 20 objects that retain the most, each with its shortest path from a GC root.
SELECT id, class, retained, path(id) AS path
FROM objects
WHERE retained IS NOT NULL
ORDER BY retained DESC
LIMIT 20
