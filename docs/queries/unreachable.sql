-- The classes of the objects no GC root reaches over strong references (garbage at the dump).
SELECT class, count(*) AS n, sum(shallow) AS shallow
FROM objects
WHERE NOT reachable
GROUP BY class
ORDER BY shallow DESC
LIMIT 20
