-- The classes whose instances retain the most (a sum over the instances: an instance
-- that another of its class retains counts twice; classes.retained does not).
SELECT class, count(*) AS n, sum(retained) AS retained
FROM objects
GROUP BY class
ORDER BY 3 DESC NULLS LAST
LIMIT 20
