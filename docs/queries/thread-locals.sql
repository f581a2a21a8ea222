-- What each thread's (goroutine's) stack holds: its locals and the bytes they retain.
SELECT t.name, count(*) AS locals, sum(o.retained) AS retained
FROM locals l
JOIN threads t ON t.id = l.thread
JOIN objects o ON o.n = l.n
GROUP BY t.name
ORDER BY retained DESC NULLS LAST
LIMIT 20
